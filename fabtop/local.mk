# fabtop: the terminal view, a client of fabmond's HTTP API. Its model
# (JSON answers into structs), HTTP client, canvas and views are a
# library that the tests and the fuzz target link; ui.c (curses) and
# fabtop.c make the program.
noinst_LIBRARIES += libfabtop.a
libfabtop_a_SOURCES = fabtop/fabtop_model.c fabtop/fabtop_model.h \
	fabtop/fetch.c fabtop/fetch.h \
	fabtop/canvas.c fabtop/canvas.h \
	fabtop/view.c fabtop/view.h fabtop/view_int.h \
	fabtop/view_sort.c fabtop/view_panes.c \
	fabtop/app.c fabtop/app.h
libfabtop_a_CPPFLAGS = $(FABTOP_CPPFLAGS)
libfabtop_a_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS) $(CURL_CFLAGS)
FABTOP_LIBS = libfabtop.a libfabmon_lib.a $(JANSSON_LIBS) $(CURL_LIBS) -lm

# The program is built as fabtop/fabtop (a top-level "fabtop" would
# collide with the object directory) and installed as $(bindir)/fabtop.
bin_PROGRAMS += fabtop/fabtop
fabtop_fabtop_SOURCES = fabtop/fabtop.c fabtop/ui.c fabtop/ui.h
fabtop_fabtop_CPPFLAGS = $(FABTOP_CPPFLAGS)
fabtop_fabtop_CFLAGS = $(AM_CFLAGS) $(NCURSESW_CFLAGS) $(CURL_CFLAGS)
fabtop_fabtop_LDADD = $(FABTOP_LIBS) $(NCURSESW_LIBS)

# The model on canned answers of a real fabmond and on broken ones; the
# views drawn from them.
check_PROGRAMS += tests/check_fabtop
TESTS += tests/check_fabtop
tests_check_fabtop_SOURCES = tests/check_fabtop.c
tests_check_fabtop_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/fabtop
tests_check_fabtop_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(JANSSON_CFLAGS)
tests_check_fabtop_LDADD = $(FABTOP_LIBS) $(CHECK_LIBS)

# Batch mode against fabmond fed by fabsim; the curses view in tmux.
TESTS += tests/integration_fabtop.sh tests/integration_fabtop_tmux.sh
# tests/data and fuzz/corpus are distributed whole (tests/, fuzz/).
EXTRA_DIST += tests/integration_fabtop.sh tests/integration_fabtop_tmux.sh \
	fuzz/fuzz_fabtop_json.c

# The JSON model under libFuzzer; without it, its corpus replays as a
# test.
if ENABLE_FUZZERS
noinst_PROGRAMS += fuzz/fuzz_fabtop_json
fuzz_fuzz_fabtop_json_SOURCES = fuzz/fuzz_fabtop_json.c
fuzz_fuzz_fabtop_json_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/fabtop
fuzz_fuzz_fabtop_json_LDADD = $(FABTOP_LIBS)
fuzz_fuzz_fabtop_json_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)
else
check_PROGRAMS += fuzz/replay_fabtop_json
TESTS += fuzz/replay_fabtop_json
fuzz_replay_fabtop_json_SOURCES = fuzz/fuzz_fabtop_json.c fuzz/replay.c
fuzz_replay_fabtop_json_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/fabtop \
	-DFUZZ_CORPUS='"fabtop_json"'
fuzz_replay_fabtop_json_LDADD = $(FABTOP_LIBS)
endif
