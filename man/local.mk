man_MANS = man/fabmond.8 man/fabmon.yaml.5 man/fabsim.1
man/fabmond.8: man/fabmond.8.in Makefile
	$(AM_V_GEN)$(MKDIR_P) man && $(edit) $(srcdir)/$@.in > $@.tmp && mv $@.tmp $@
man/fabmon.yaml.5: man/fabmon.yaml.5.in Makefile
	$(AM_V_GEN)$(MKDIR_P) man && $(edit) $(srcdir)/$@.in > $@.tmp && mv $@.tmp $@
man/fabsim.1: man/fabsim.1.in Makefile
	$(AM_V_GEN)$(MKDIR_P) man && $(edit) $(srcdir)/$@.in > $@.tmp && mv $@.tmp $@
CLEANFILES += man/fabmond.8 man/fabmon.yaml.5
EXTRA_DIST += man/fabmond.8.in man/fabmon.yaml.5.in
CLEANFILES += man/fabsim.1
EXTRA_DIST += man/fabsim.1.in
man_MANS += man/fabtop.1
man/fabtop.1: man/fabtop.1.in Makefile
	$(AM_V_GEN)$(MKDIR_P) man && $(edit) $(srcdir)/$@.in > $@.tmp && mv $@.tmp $@
CLEANFILES += man/fabtop.1
EXTRA_DIST += man/fabtop.1.in
