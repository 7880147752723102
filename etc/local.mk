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
