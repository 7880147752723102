# The fault suite (issue #16): one fabmond on a fabsim fabric while
# faults hit some of its targets (tests/faults/faults.py).
TESTS += tests/faults/fault_suite.sh
EXTRA_DIST += tests/faults/fault_suite.sh tests/faults/faults.py \
	tests/faults/fabric.py tests/faults/phases.py tests/faults/watch.py \
	tests/faults/netns.py tests/faults/clients.py
