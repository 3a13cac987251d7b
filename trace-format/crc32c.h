/*
 * crc32c.h — CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the
 * checksum of every header, chunk and index in the file.
 */
#ifndef TTREC_IDNA_CRC32C_H
#define TTREC_IDNA_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* crc32c(0, data, n) is the standard CRC-32C of data; pass a previous
 * result as crc to continue over more bytes. */
uint32_t crc32c(uint32_t crc, const void *data, size_t n);
/* The same in plain C (what crc32c uses on a CPU without SSE4.2). */
uint32_t crc32c_portable(uint32_t crc, const void *data, size_t n);

#endif
