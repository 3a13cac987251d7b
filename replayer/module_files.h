/*
 * module_files.h — the files the program mapped, as the trace lists them
 * (MODULE_LOAD records), read from this machine's copies when their
 * build-ids match. A byte of a file mapping that the replay has not seen
 * the program touch still holds what the file holds.
 */
#ifndef TTREC_MODULE_FILES_H
#define TTREC_MODULE_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace-format/idna.h"

struct module_files;

/* Collects the mappings of the trace's global stream. A file whose copy on
 * this machine is not the one recorded is taken from pack_dir (the trace's
 * `ttrec pack` folder; NULL: none) when it is there. NULL when memory is
 * short. */
struct module_files *module_files_load(struct idna_reader *r, const char *pack_dir);
void module_files_free(struct module_files *m);

/* Reads bytes of [addr, addr+len) from the file mapped there; returns how
 * many leading bytes it could read (0 when no usable file maps addr). */
size_t module_files_read(struct module_files *m, uint64_t addr, void *buf, size_t len);

/* Calls fn once per file mapped from its first byte (file offset 0), with
 * the address of the last such mapping the trace lists: where the file's
 * image starts. */
void module_files_each_image(const struct module_files *m,
			     void (*fn)(void *ctx, const char *path, uint64_t addr), void *ctx);

/* A new read-only descriptor of the file the trace maps from `path`: the
 * recorded one (this machine's copy, or the pack's); this machine's copy
 * when neither is to be had and it exists (a warning from
 * module_files_report_mismatches said so). -errno when none, -EACCES when
 * the trace maps no file of that path. */
int module_files_open(struct module_files *m, const char *path);

/* Calls fn once per file path whose copy on this machine is not the one
 * recorded (missing, or another build-id), saying whether the pack has the
 * recorded one. Files recorded without a build-id cannot be told apart and
 * are left out. */
void module_files_report_mismatches(struct module_files *m,
				    void (*fn)(void *ctx, const char *path, bool missing,
					       bool packed),
				    void *ctx);

#endif
