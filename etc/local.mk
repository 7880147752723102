# Example config, profiles and the systemd unit, filled with the
# configured paths at build time.
dist_pkgdata_DATA = etc/fabmon.yaml etc/web-config.yml.example

systemdsystemunit_DATA = etc/systemd/fabmond.service
etc/systemd/fabmond.service: etc/systemd/fabmond.service.in Makefile
	$(AM_V_GEN)$(MKDIR_P) etc/systemd && $(edit) $(srcdir)/$@.in > $@.tmp && mv $@.tmp $@
CLEANFILES += etc/systemd/fabmond.service
EXTRA_DIST += etc/systemd/fabmond.service.in

# Substitutes configured paths into templates (lldpd's edit.am idea).
edit = $(SED) \
	-e 's|@sbindir[@]|$(sbindir)|g' \
	-e 's|@bindir[@]|$(bindir)|g' \
	-e 's|@sysconfdir[@]|$(sysconfdir)|g' \
	-e 's|@pkgdatadir[@]|$(pkgdatadir)|g' \
	-e 's|@localstatedir[@]|$(localstatedir)|g' \
	-e 's|@PACKAGE_VERSION[@]|$(PACKAGE_VERSION)|g'
