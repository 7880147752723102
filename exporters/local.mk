# exporters/ sources are part of libfabmon.a (daemon/local.mk).
EXTRA_DIST += doc/api.md
