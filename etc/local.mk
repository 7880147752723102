# Example config, profiles, the systemd unit and its system user, filled
# with the configured paths at build time.

# The example config goes where fabmond looks by default,
# $(sysconfdir)/fabmon/fabmon.yaml, unless a file is already there: an
# operator's config is never overwritten. Uninstall removes it only if
# it is still the unedited example.
fabmonconfdir = $(sysconfdir)/fabmon
EXTRA_DIST += etc/fabmon.yaml
install-data-local: install-fabmon-config
uninstall-local: uninstall-fabmon-config
install-fabmon-config:
	$(MKDIR_P) '$(DESTDIR)$(fabmonconfdir)'
	@if test -f '$(DESTDIR)$(fabmonconfdir)/fabmon.yaml'; then \
	  echo "keeping the existing $(DESTDIR)$(fabmonconfdir)/fabmon.yaml"; \
	else \
	  echo " $(INSTALL_DATA) etc/fabmon.yaml '$(DESTDIR)$(fabmonconfdir)/fabmon.yaml'"; \
	  $(INSTALL_DATA) $(srcdir)/etc/fabmon.yaml \
	    '$(DESTDIR)$(fabmonconfdir)/fabmon.yaml'; \
	fi
uninstall-fabmon-config:
	@if cmp -s $(srcdir)/etc/fabmon.yaml \
	    '$(DESTDIR)$(fabmonconfdir)/fabmon.yaml'; then \
	  echo " rm -f '$(DESTDIR)$(fabmonconfdir)/fabmon.yaml'"; \
	  rm -f '$(DESTDIR)$(fabmonconfdir)/fabmon.yaml'; \
	fi
.PHONY: install-fabmon-config uninstall-fabmon-config

# The web config example (http.web_config, fabmon.yaml(5)).
dist_pkgdata_DATA = etc/web-config.yml.example

systemdsystemunit_DATA = etc/systemd/fabmond.service
etc/systemd/fabmond.service: etc/systemd/fabmond.service.in Makefile
	$(AM_V_GEN)$(MKDIR_P) etc/systemd && $(edit) $(srcdir)/$@.in > $@.tmp && mv $@.tmp $@
CLEANFILES += etc/systemd/fabmond.service
EXTRA_DIST += etc/systemd/fabmond.service.in

# The unit's user, _fabmon; "systemd-sysusers fabmon.conf" creates it
# (a package's postinst does; after "make install" to another prefix,
# give systemd-sysusers the installed file's path).
sysusers_DATA = etc/sysusers.d/fabmon.conf
EXTRA_DIST += etc/sysusers.d/fabmon.conf

# Substitutes configured paths into templates (lldpd's edit.am idea).
edit = $(SED) \
	-e 's|@sbindir[@]|$(sbindir)|g' \
	-e 's|@bindir[@]|$(bindir)|g' \
	-e 's|@sysconfdir[@]|$(sysconfdir)|g' \
	-e 's|@pkgdatadir[@]|$(pkgdatadir)|g' \
	-e 's|@localstatedir[@]|$(localstatedir)|g' \
	-e 's|@PACKAGE_VERSION[@]|$(PACKAGE_VERSION)|g'

# Prometheus rules and Grafana dashboards (doc/prometheus-grafana.md):
# installed under $(pkgdatadir) for the operator (or a package) to link
# into Prometheus' rule_files and Grafana's provisioning.
prometheusrulesdir = $(pkgdatadir)/prometheus
dist_prometheusrules_DATA = etc/prometheus/fabmon-rules.yml \
	etc/prometheus/fabmon-alerts.yml
grafanadashboardsdir = $(pkgdatadir)/grafana/dashboards
dist_grafanadashboards_DATA = etc/grafana/dashboards/fabmon-overview.json \
	etc/grafana/dashboards/fabmon-pfc.json \
	etc/grafana/dashboards/fabmon-ecn-cnp.json \
	etc/grafana/dashboards/fabmon-targets.json
grafanaprovdashboardsdir = $(pkgdatadir)/grafana/provisioning/dashboards
grafanaprovdashboards_DATA = etc/grafana/provisioning/dashboards/fabmon.yaml
grafanaprovdatasourcesdir = $(pkgdatadir)/grafana/provisioning/datasources
dist_grafanaprovdatasources_DATA = etc/grafana/provisioning/datasources/fabmon.yaml
etc/grafana/provisioning/dashboards/fabmon.yaml: etc/grafana/provisioning/dashboards/fabmon.yaml.in Makefile
	$(AM_V_GEN)$(MKDIR_P) etc/grafana/provisioning/dashboards && \
	$(edit) $(srcdir)/$@.in > $@.tmp && mv $@.tmp $@
CLEANFILES += etc/grafana/provisioning/dashboards/fabmon.yaml
EXTRA_DIST += etc/grafana/provisioning/dashboards/fabmon.yaml.in
EXTRA_DIST += doc/prometheus-grafana.md
