/*
 * resim_state_free.c — what a saved re-simulation state holds given back.
 * Apart from resim_state.c (saving and restoring) so that the code keeping
 * states without replaying them (the index's reader and writer, and the
 * index's fuzzer that links them) needs only the image, the code-page set
 * and the cache copies, not the re-simulation.
 */
#include <stdlib.h>
#include <string.h>

#include "replayer/resim.h"
#include "replayer/sparse_copy.h"
#include "trace-format/code_page_set.h"

void resim_state_free(struct resim_state *st)
{
	for (size_t i = 0; st->threads && i < st->n_threads; i++)
		sparse_copy_free(&st->threads[i].cache);
	free(st->threads);
	code_page_set_free(st->code_pages);
	memory_image_free(st->image);
	memset(st, 0, sizeof(*st));
}
