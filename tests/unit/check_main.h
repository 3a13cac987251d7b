/*
 * check_main.h — the main() every Check suite program shares: runs the
 * suite named by TEST_SUITE and exits non-zero on any failure.
 */
#ifndef TTREC_CHECK_MAIN_H
#define TTREC_CHECK_MAIN_H

#include <check.h>
#include <stdlib.h>

#define CHECK_MAIN(suite_fn)                                      \
	int main(void)                                            \
	{                                                         \
		SRunner *sr = srunner_create(suite_fn());         \
		srunner_run_all(sr, CK_NORMAL);                   \
		int failed = srunner_ntests_failed(sr);           \
		srunner_free(sr);                                 \
		return failed ? EXIT_FAILURE : EXIT_SUCCESS;      \
	}

#endif
