# SPDX-License-Identifier: GPL-2.0-only
# `make standalone`: standalone/NAME, one self-contained script per unittests.cfg entry of this build's arch.
# Include it after TESTS is set: the scripts embed the built kernels.

.PHONY: standalone standalone-clean
standalone: $(TESTS) $(SRCDIR)/unittests.cfg
	$(SRCDIR)/scripts/mkstandalone.sh --build $(CURDIR) --out $(CURDIR)/standalone

standalone-clean:
	rm -rf standalone
