# SPDX-License-Identifier: GPL-2.0-only
# Builds every test kernel of one configured arch; every freestanding flag lives here.

.DEFAULT_GOAL := all

# Targets that need no configured build.
.PHONY: check run report fuzz host-check
check:
	@$(or $(SRCDIR),.)/scripts/check.sh
run:
	@$(or $(SRCDIR),.)/scripts/check.sh --run
# The page of make run's logs (make run leaves it too): logs/reports/report.html, docs/report.md.
report:
	@cd $(or $(SRCDIR),.) && scripts/report -o logs/reports/report.html logs
host-check:
	@$(MAKE) -C $(or $(SRCDIR),.)/host-tests check
fuzz:
	@$(MAKE) -C $(or $(SRCDIR),.)/host-tests fuzz

ifeq ($(wildcard config.mak),)
ifeq ($(filter-out check run report fuzz host-check,$(or $(MAKECMDGOALS),all)),)
else
$(error no config.mak here: run ./configure first (e.g. ./configure --arch=x86_64))
endif
else
include config.mak

S := $(SRCDIR)

ifeq ($(ARCH),aarch64)
TESTDIR := arm
LIBARCH := lib/arm64
START_OBJ := lib/arm64/head.o
else
TESTDIR := x86
LIBARCH := lib/x86
START_OBJ = lib/x86/start_$(BITS).o
endif

# --- the freestanding flags, for every arch ---------------------------------
CFLAGS := -std=gnu11 -O2 -g -ffreestanding -nostdlib -fno-pic -fno-pie \
	-fno-stack-protector -fno-common -fno-omit-frame-pointer \
	-fno-strict-aliasing -fno-asynchronous-unwind-tables \
	-Wall -Wextra -Werror -Wno-unused-parameter -Wno-missing-field-initializers \
	-Wmissing-prototypes -Wstrict-prototypes \
	-I$(S)/lib -DVMTICK_ARCH_$(ARCH)
ifeq ($(CC_TYPE),gcc)
CFLAGS += -fno-tree-loop-distribute-patterns
endif
ASFLAGS := -D__ASSEMBLY__ -I$(S)/lib -DVMTICK_ARCH_$(ARCH) -g
LDFLAGS := -nostdlib -static --no-dynamic-linker -z noexecstack -z max-page-size=4096 --build-id=none $(if $(filter gcc,$(CC_TYPE)),--no-warn-rwx-segments)

# General-purpose registers only: the kernels never save FPU/SIMD state.
ifeq ($(ARCH),x86_64)
ARCHFLAGS := -m64 -mno-red-zone -mno-mmx -mno-sse -mno-sse2 -mno-avx -mno-3dnow
BITS := 64
# QEMU's multiboot loader takes 32-bit ELF only: the 64-bit kernel is re-wrapped.
FLATFMT := -O elf32-i386
else ifeq ($(ARCH),i386)
ARCHFLAGS := -m32 -march=i686 -mno-mmx -mno-sse -mno-sse2 -mno-avx -mno-3dnow
BITS := 32
FLATFMT :=
else
# Inline LL/SC atomics: Debian's gcc would otherwise call libgcc's __aarch64_* helpers.
ARCHFLAGS := -mgeneral-regs-only -mstrict-align -mno-outline-atomics
FLATFMT := -O binary
endif
CFLAGS += $(ARCHFLAGS)
ASFLAGS += $(ARCHFLAGS)

# --- sources: found by wildcard, never listed -------------------------------
rel = $(patsubst $(S)/%,%,$(1))
# lib/test_name.c is built once per kernel (below), not into the library.
# common/ holds the test engines, a folder each (common/tick/, common/lifecycle/, ...): its
# arch-neutral half, and under ENGINE/x86/ or ENGINE/arm64/ its arch half; they go into the
# library too.
ENGINES := $(patsubst %/,%,$(wildcard $(S)/common/*/))
LIB_C := $(filter-out lib/test_name.c,$(call rel,$(wildcard $(S)/lib/*.c $(S)/$(LIBARCH)/*.c \
	$(addsuffix /*.c,$(ENGINES)) $(addsuffix /$(notdir $(LIBARCH))/*.c,$(ENGINES)))))
ifeq ($(TESTDIR),x86)
LIB_S := $(call rel,$(wildcard $(S)/$(LIBARCH)/*_$(BITS).S) $(filter-out %_32.S %_64.S,$(wildcard $(S)/$(LIBARCH)/*.S)))
else
LIB_S := $(call rel,$(wildcard $(S)/$(LIBARCH)/*.S))
endif
LIB_OBJS := $(LIB_C:.c=.o) $(LIB_S:.S=.o)
TEST_SRCS := $(call rel,$(wildcard $(S)/$(TESTDIR)/*.c))
# A kernel of several files is a folder: every x86/NAME/*.c (arm/NAME/*.c)
# goes into x86/NAME.flat, the test NAME; its files share headers there.
TEST_DIRS := $(sort $(patsubst %/,%,$(dir $(call rel,$(wildcard $(S)/$(TESTDIR)/*/*.c)))))
dir_objs = $(patsubst %.c,%.o,$(call rel,$(wildcard $(S)/$(1)/*.c)))
TEST_DIR_OBJS := $(foreach d,$(TEST_DIRS),$(call dir_objs,$(d)))
ifneq ($(filter $(TEST_DIRS:=.c),$(TEST_SRCS)),)
$(error $(filter $(TEST_DIRS:=.c),$(TEST_SRCS)): a kernel is one file or one folder, not both)
endif
TESTS := $(TEST_SRCS:.c=.flat) $(TEST_DIRS:=.flat)
LDSCRIPT := $(S)/$(LIBARCH)/flat.lds

.PHONY: all clean tests-list
all: $(TESTS)

tests-list:
	@echo $(TESTS)

# V=1 shows the commands; make -s shows nothing
silent := $(findstring s,$(firstword -$(MAKEFLAGS)))
quiet = $(if $(V),,@$(if $(silent),,printf '  %-7s %s\n' $(1) $@;))

# lib/ is the floor every kernel stands on and knows no test: it sees only its own headers.
# The engines and the tests see lib/ and every engine's folder ("x86/tick.h": an arch half's).
DIR_CFLAGS_lib :=
DIR_CFLAGS_common := $(addprefix -I,$(ENGINES))
DIR_CFLAGS_$(TESTDIR) := $(addprefix -I,$(ENGINES))

# Pattern rules name their directory: a slash-free '%.o' would match the
# file part only and look for sources in the wrong place out of tree.
define compile_rules
$(1)/%.o: $(S)/$(1)/%.c
	@mkdir -p $$(dir $$@)
	$$(call quiet,CC)$$(CC) $$(CFLAGS) $$(DIR_CFLAGS_$(1)) -MMD -MP -c -o $$@ $$<

$(1)/%.o: $(S)/$(1)/%.S
	@mkdir -p $$(dir $$@)
	$$(call quiet,AS)$$(CC) $$(ASFLAGS) -MMD -MP -c -o $$@ $$<
endef
$(foreach d,lib common $(TESTDIR),$(eval $(call compile_rules,$(d))))

lib/libvmtick.a: $(LIB_OBJS)
	@rm -f $@
	$(call quiet,AR)$(AR) rcs $@ $^

# Each kernel's name (argv[0]) is its source file's: test_name[] (lib/start.h).
$(TESTDIR)/%.name.o: $(S)/lib/test_name.c
	@mkdir -p $(dir $@)
	$(call quiet,CC)$(CC) $(CFLAGS) -DTEST_NAME='"$(notdir $*)"' -MMD -MP -c -o $@ $<

# The start-up object goes in first and whole; the rest of the library only
# as far as the test uses it, which keeps each .flat small.
%.elf: %.o %.name.o lib/libvmtick.a $(LDSCRIPT)
	@mkdir -p $(dir $@)
	$(call quiet,LD)$(LD) $(LDFLAGS) -T $(LDSCRIPT) -o $@ $(START_OBJ) $< $*.name.o lib/libvmtick.a

# A folder's kernel: its objects in place of the one %.o.
define dir_kernel
$(1).elf: $(call dir_objs,$(1)) $(1).name.o lib/libvmtick.a $$(LDSCRIPT)
	@mkdir -p $$(dir $$@)
	$$(call quiet,LD)$$(LD) $$(LDFLAGS) -T $$(LDSCRIPT) -o $$@ $$(START_OBJ) $(call dir_objs,$(1)) $(1).name.o lib/libvmtick.a
endef
$(foreach d,$(TEST_DIRS),$(eval $(call dir_kernel,$(d))))

%.flat: %.elf
	$(call quiet,OBJCOPY)$(OBJCOPY) --strip-all $(FLATFMT) $< $@

.SECONDARY:

clean:
	rm -f lib/*.o lib/*/*.o lib/*.d lib/*/*.d common/*/*.o common/*/*/*.o common/*/*.d common/*/*/*.d lib/libvmtick.a $(TESTDIR)/*.o $(TESTDIR)/*.d $(TESTDIR)/*/*.o $(TESTDIR)/*/*.d $(TESTDIR)/*.elf $(TESTDIR)/*.flat

include $(S)/scripts/standalone.mk

-include $(LIB_OBJS:.o=.d) $(TEST_SRCS:.c=.d) $(TEST_SRCS:.c=.name.d) $(TEST_DIR_OBJS:.o=.d) $(TEST_DIRS:=.name.d)

endif
