# sluice — plain GNU Makefile.
#   make            build ./sluice
#   sudo make run   install missing Debian build deps, build, start sluice
#   make check      same set-up, then every test (ends "N passed, N failed")
#   make install    PREFIX=/usr/local DESTDIR=
PREFIX  ?= /usr/local
DESTDIR ?=
CC      ?= gcc
PKGS     = sqlite3 jansson ncursesw libcurl liburing inih gsl uuid libxml-2.0 libcrypto libzstd libpq

# Debian packages: build dependencies, then what the tests drive for real.
BUILD_DEBS = gcc make pkg-config libsqlite3-dev libjansson-dev libncurses-dev \
             libcurl4-openssl-dev liburing-dev libinih-dev libgsl-dev uuid-dev \
             libxml2-dev libssl-dev libzstd-dev libpq-dev
TEST_DEBS  = sqlite3 tmux util-linux e2fsprogs fio systemd cppcheck valgrind \
             clang libclang-rt-14-dev dmsetup \
             nginx libnginx-mod-http-dav-ext python3 openssl openssh-server chromium rsyslog zstd postgresql-15 \
             debhelper dpkg-dev lintian jq python3-jsonschema

PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)

WARN     = -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wno-unused-parameter -Wno-format-truncation
CFLAGS  ?= -O2 -g
# CPPFLAGS and LDFLAGS come from the caller as well (dpkg-buildflags: fortify,
# relro, BIND_NOW); every compile takes CPPFLAGS and every link LDFLAGS.
CPPFLAGS ?=
LDFLAGS  ?=
# Installed data (shipped profiles) are found here when no --profiles DIR,
# $SLUICE_PROFILES or /etc/sluice/profiles has them.
DATADIR ?= $(PREFIX)/share/sluice
ALL_CFLAGS = -std=c11 -D_GNU_SOURCE $(WARN) $(CPPFLAGS) $(CFLAGS) -Isrc -I. -Ibuild $(PKG_CFLAGS)
LDLIBS   = $(PKG_LIBS) -lpthread -lm
SAN      = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined

CORE_SRC = $(sort $(wildcard src/*/*.c db/*.c ui/*.c))
LIB_SRC  = $(filter-out src/cli/main.c,$(CORE_SRC))
UNIT_SRC = $(sort $(wildcard tests/unit/*.c))
MIGRATIONS = $(sort $(wildcard db/migrations/*.sql))

OBJ      = $(patsubst %.c,build/obj/%.o,$(CORE_SRC)) build/obj/migrations.o
LIB_OBJ  = $(patsubst %.c,build/obj/%.o,$(LIB_SRC)) build/obj/migrations.o
ASAN_OBJ = $(patsubst %.c,build/asan/%.o,$(CORE_SRC)) build/asan/migrations.o
ASAN_LIB = $(patsubst %.c,build/asan/%.o,$(LIB_SRC)) build/asan/migrations.o

.PHONY: all run check check-long deps test-deps install uninstall clean asan unit man fuzz fuzz-build
all: sluice sluice-apply

sluice: $(OBJ)
	$(if $(Q),@echo "  LINK    $@")
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# sluice-apply: what the boot unit runs (restore --crashed, apply --boot;
# also show, set, sessions, off, active), so a server applies its profile at
# boot without PostgreSQL's, curl's or GSL's libraries. Linked from an archive
# of the core: only the objects those commands reach come in, and only
# APPLY_PKGS are offered, so code that drags a fleet or statistics library
# into the boot path fails this link instead of growing the boot's needs.
APPLY_PKGS = sqlite3 jansson inih uuid
APPLY_OBJ  = $(patsubst %.c,build/obj/%.o,src/cli/main.c src/cli/cli_apply.c src/cli/cli_sessions.c)
build/sluice-core.a: $(LIB_OBJ)
	$(if $(Q),@echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $^

sluice-apply: $(APPLY_OBJ) build/sluice-core.a
	$(if $(Q),@echo "  LINK    $@")
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(shell pkg-config --libs $(APPLY_PKGS) 2>/dev/null) -lpthread -lm

# The manual: hand-written parts around the COMMANDS synopsis and the KNOBS
# and METRICS sections that the binary generates from the option tables, the
# catalogue and the metric table (tests/cases/man-current checks all are current).
man: sluice
	{ cat man/sluice.8.head; ./sluice man-commands; cat man/sluice.8.commands; ./sluice man-knobs; \
	  ./sluice man-metrics; cat man/sluice.8.tail; } > man/sluice.8

# Quiet by default; `make V=1` shows the commands.
Q = $(if $(V),,@)

build/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC      $<")
	$(Q)$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

build/asan/%.o: %.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC-SAN  $<")
	$(Q)$(CC) $(ALL_CFLAGS) $(SAN) -MMD -MP -c -o $@ $<

# Install paths compiled in; rewritten only when PREFIX/DATADIR change, so a
# `make install PREFIX=...` rebuilds what depends on them and nothing else.
build/paths.h: FORCE
	@mkdir -p build
	@printf '#define SLUICE_DATADIR "%s"\n' '$(DATADIR)' > $@.tmp
	@cmp -s $@.tmp $@ 2>/dev/null && rm -f $@.tmp || mv $@.tmp $@
build/obj/src/profile/profile.o build/asan/src/profile/profile.o: build/paths.h
.PHONY: FORCE
FORCE:

# dbench's built-in loadfile is embedded the same way (a C string).
build/dbench_load.h: loadfiles/dbench-office.load
	@mkdir -p build
	$(Q){ echo '/* generated from $< by the Makefile — do not edit */'; echo 'static const char dbench_load_text[] ='; \
	  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/    "/' -e 's/$$/\\n"/' $<; echo '    ;'; } > $@
build/obj/src/probe/loadfile.o build/asan/src/probe/loadfile.o: build/dbench_load.h

# Migrations are embedded so the binary never depends on files at run time.
build/migrations.c: $(MIGRATIONS) db/embed.sh
	@mkdir -p build
	sh db/embed.sh $(MIGRATIONS) > $@

build/obj/migrations.o: build/migrations.c
	$(CC) $(ALL_CFLAGS) -c -o $@ $<
build/asan/migrations.o: build/migrations.c
	@mkdir -p build/asan
	$(CC) $(ALL_CFLAGS) $(SAN) -c -o $@ $<

build/asan/sluice: $(ASAN_OBJ)
	$(CC) $(ALL_CFLAGS) $(SAN) $(LDFLAGS) -o $@ $^ $(LDLIBS)

build/unit-tests: $(LIB_OBJ) $(UNIT_SRC)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -Itests/unit -o $@ $(UNIT_SRC) $(LIB_OBJ) $(LDLIBS)

build/asan/unit-tests: $(ASAN_LIB) $(UNIT_SRC)
	$(CC) $(ALL_CFLAGS) $(SAN) $(LDFLAGS) -Itests/unit -o $@ $(UNIT_SRC) $(ASAN_LIB) $(LDLIBS)

asan: build/asan/sluice build/asan/unit-tests
unit: build/unit-tests

# Installs only what is missing; a no-op on a ready machine.
deps:
	@sh tests/tools/debs.sh $(BUILD_DEBS)

# tests/net's S3 back-end is s3rver, which runs on node: Debian's nodejs and
# npm unless node and npm are already there (NodeSource's nodejs, for one,
# bundles npm and conflicts with Debian's npm package).
test-deps: deps
	@sh tests/tools/debs.sh $(TEST_DEBS)
	@command -v node > /dev/null && command -v npm > /dev/null || sh tests/tools/debs.sh nodejs npm
	@sh tests/tools/tuned-profiles.sh

run: deps
	$(MAKE) sluice
	./sluice

check: test-deps
	$(MAKE) -j$$(nproc) sluice sluice-apply build/unit-tests asan
	sh tests/run.sh

# Longer hardening loops than make check runs (50 kill/restore rounds).
check-long: test-deps
	$(MAKE) -j$$(nproc) sluice sluice-apply build/unit-tests asan
	SLUICE_LONG=1 sh tests/run.sh

# libFuzzer targets (tests/fuzz/fuzz_*.c) built with clang against every
# non-main source; `make check` replays their corpus and regressions
# (tests/fuzz/run.sh), `make fuzz FUZZ_SECONDS=N` fuzzes each for N seconds.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_SAN     = -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_CFLAGS  = -std=c11 -D_GNU_SOURCE -g -O1 -Wall -Wno-unused-parameter -Isrc -I. -Ibuild \
               $(PKG_CFLAGS) $(FUZZ_SAN) -DFUZZ_FIXTURES='"$(CURDIR)/tests/fixtures"' -DFUZZ_PROFILES='"$(CURDIR)/profiles"'
FUZZ_LIB     = $(patsubst %.c,build/fuzz/obj/%.o,$(LIB_SRC)) build/fuzz/obj/migrations.o
FUZZ_TARGETS = $(patsubst tests/fuzz/%.c,build/fuzz/%,$(sort $(wildcard tests/fuzz/fuzz_*.c)))

build/fuzz/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC-FUZZ $<")
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c -o $@ $<

build/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(FUZZ_LIB)
	$(if $(Q),@echo "  FUZZ    $@")
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -Itests/fuzz -o $@ $< $(FUZZ_LIB) $(LDLIBS)

build/fuzz/obj/migrations.o: build/migrations.c
	@mkdir -p $(dir $@)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

.SECONDARY: $(FUZZ_LIB)
fuzz-build: $(FUZZ_TARGETS)

fuzz: fuzz-build
	sh tests/fuzz/fuzz.sh $(FUZZ_SECONDS)

# The unit runs the installed sluice-apply: generated by sluice, so its text has one source.
build/sluice-apply.service: sluice FORCE
	@mkdir -p build
	@./sluice boot unit --exe $(PREFIX)/sbin/sluice-apply > $@.tmp && mv $@.tmp $@

# So is the bash completion: generated from the option tables.
build/sluice.bash: sluice FORCE
	@mkdir -p build
	@./sluice completion bash > $@.tmp && mv $@.tmp $@

install: sluice sluice-apply build/sluice-apply.service build/sluice.bash
	install -d $(DESTDIR)$(PREFIX)/sbin $(DESTDIR)$(PREFIX)/share/man/man8 \
	    $(DESTDIR)$(PREFIX)/share/man/man5 $(DESTDIR)$(DATADIR)/profiles $(DESTDIR)$(PREFIX)/lib/systemd/system \
	    $(DESTDIR)$(PREFIX)/share/bash-completion/completions
	install -m 0755 sluice $(DESTDIR)$(PREFIX)/sbin/sluice
	install -m 0755 sluice-apply $(DESTDIR)$(PREFIX)/sbin/sluice-apply
	# The manual names the profile directory this install compiled in.
	sed 's#/usr/local/share/sluice#$(DATADIR)#g' man/sluice.8 > build/sluice.8 && \
	    install -m 0644 build/sluice.8 $(DESTDIR)$(PREFIX)/share/man/man8/sluice.8
	ln -sf sluice.8 $(DESTDIR)$(PREFIX)/share/man/man8/sluice-apply.8
	sed 's#/usr/local/share/sluice#$(DATADIR)#g' man/sluice-profile.5 > build/sluice-profile.5 && \
	    install -m 0644 build/sluice-profile.5 $(DESTDIR)$(PREFIX)/share/man/man5/sluice-profile.5
	install -m 0644 profiles/*.conf $(DESTDIR)$(DATADIR)/profiles/
	install -m 0644 build/sluice-apply.service $(DESTDIR)$(PREFIX)/lib/systemd/system/sluice-apply.service
	install -m 0644 build/sluice.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/sluice

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/sbin/sluice $(DESTDIR)$(PREFIX)/sbin/sluice-apply $(DESTDIR)$(PREFIX)/share/man/man8/sluice.8 $(DESTDIR)$(PREFIX)/share/man/man8/sluice-apply.8 \
	      $(DESTDIR)$(PREFIX)/share/man/man5/sluice-profile.5 $(DESTDIR)$(PREFIX)/lib/systemd/system/sluice-apply.service \
	      $(DESTDIR)$(PREFIX)/share/bash-completion/completions/sluice
	rm -rf $(DESTDIR)$(DATADIR)

clean:
	rm -rf build sluice sluice-apply

-include $(shell find build/obj build/asan -type f -name '*.d' 2>/dev/null)
