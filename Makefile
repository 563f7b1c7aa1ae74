# omoide — every target builds with the FTS5 tag: without it SQLite has no FTS5.
GO       ?= go
TAGS     := sqlite_fts5
GOFLAGS  := -tags=$(TAGS)
EVAL     ?= ../shared/eval
BIN      := bin

.PHONY: all build test demo bench eval race fuzz vet clean tools thesaurus forms browser screenshots

# The cluster test's proxy and replicator (docs/scale-out.md), built with the
# project's Go into .tools/bin, once.
TOOLS              := $(CURDIR)/.tools/bin
CADDY_VERSION      := v2.11.9
LITESTREAM_VERSION := v0.5.18

all: build

build:
	$(GO) build $(GOFLAGS) -o $(BIN)/ ./cmd/...

vet:
	$(GO) vet $(GOFLAGS) ./...

# The test suite: vet, then every package's tests (goldens included, and the
# cluster test with Caddy and Litestream on loopback).
test: vet tools browser
	OMOIDE_CLUSTER_TOOLS=$(TOOLS) $(GO) test $(GOFLAGS) ./...

# The inspector's tests drive a real browser: Debian's chromium, and
# fonts-noto-cjk for screenshots that show Japanese, installed when missing and
# this is root. Otherwise they skip, and under CI=true they fail (inspect/browser_test.go).
browser:
	@if ! command -v chromium >/dev/null 2>&1 || ! dpkg -s fonts-noto-cjk >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "browser: installing chromium and fonts-noto-cjk (apt-get)"; \
	    (apt-get install -y -qq --no-install-recommends chromium fonts-noto-cjk >/dev/null 2>&1 || \
	     (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium fonts-noto-cjk >/dev/null)) || exit 1; \
	  else echo "browser: chromium or fonts-noto-cjk is missing and this is not root: the browser tests skip (and fail under CI=true)"; fi; \
	fi

# The inspector's screenshots in docs/img (README shows two), from the browser test.
screenshots: browser
	$(GO) test $(GOFLAGS) ./inspect -run TestBrowser -count=1 -screenshots $(CURDIR)/docs/img

tools: $(TOOLS)/caddy $(TOOLS)/litestream

# Built as the main module, Caddy cannot find its own version (it looks for
# itself among its dependencies): CustomVersion is its documented remedy.
$(TOOLS)/caddy: Makefile
	GOBIN=$(TOOLS) $(GO) install -ldflags '-X github.com/caddyserver/caddy/v2.CustomVersion=$(CADDY_VERSION)' github.com/caddyserver/caddy/v2/cmd/caddy@$(CADDY_VERSION)
	touch $@

$(TOOLS)/litestream: Makefile
	GOBIN=$(TOOLS) $(GO) install github.com/benbjohnson/litestream/cmd/litestream@$(LITESTREAM_VERSION)
	touch $@

# The main job: a store from the demo conversations (demo/) kept in memory.db, a few questions, the rendered
# EPISODE_EVIDENCE; then "omoide inspect -db memory.db" shows it in a browser.
demo:
	$(GO) run $(GOFLAGS) ./cmd/omoide demo -db memory.db

# A short latency run (cmd/bench latency) on generated episodes.
bench:
	$(GO) run $(GOFLAGS) ./cmd/bench latency -n 2000 -q 200

# The dev suites of ../shared/eval, when they exist.
eval:
	@if [ -d "$(EVAL)" ]; then $(GO) run $(GOFLAGS) ./cmd/bench eval -eval $(EVAL); \
	else echo "eval: $(EVAL) not found; skipping"; fi

race:
	$(GO) test $(GOFLAGS) -race ./...

# Fuzz every target, package:Target, for FUZZTIME each (not part of make test;
# their seeds, testdata/fuzz/<Target>/ included, run with every go test).
# A failing input is written to <package>/testdata/fuzz/<Target>/ and fails
# the run. Go 1.26's fuzz coordinator can also fail a target with "context
# deadline exceeded" at the -fuzztime deadline on a loaded machine without
# having found anything (go.dev/issue/75804, fixed in Go 1.27): such a run,
# which writes no failing input, is reported and does not fail make fuzz.
# FUZZMINIMIZETIME bounds the minimizing of each new input (Go's default,
# 60 s, can take a short run's whole budget on one slow input).
FUZZTIME ?= 30s
FUZZMINIMIZETIME ?= 5s
FUZZ_TARGETS := \
	./timeexpr:FuzzParse \
	./smalltalk:FuzzNeedsMemory \
	./ngram:FuzzNew \
	./tokenize:FuzzMatchQuery \
	./tokenize:FuzzAnalyzers \
	./internal/strictjson:FuzzDecode \
	./omoidehttp:FuzzDecodeEpisodes \
	./omoidehttp:FuzzDecodeRetrieve \
	./omoidehttp:FuzzDecodePack \
	./omoidehttp:FuzzServeRetrieve \
	./omoidehttp:FuzzGeneratedApart \
	./cmd/omoide:FuzzPeopleApart
fuzz:
	@for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; fn=$${t##*:}; dir=$$pkg/testdata/fuzz/$$fn; \
		before=$$(ls $$dir 2>/dev/null | wc -l); \
		echo "== $$fn ($$pkg, $(FUZZTIME))"; \
		if ! $(GO) test $(GOFLAGS) -run='^$$' -fuzz="^$$fn\$$" -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINIMIZETIME) $$pkg; then \
			if [ "$$(ls $$dir 2>/dev/null | wc -l)" -gt "$$before" ]; then \
				echo "fuzz: $$fn: failing input written to $$dir"; exit 1; \
			fi; \
			echo "fuzz: $$fn: stopped with an error but wrote no failing input (go.dev/issue/75804); not a finding"; \
		fi; \
	done

# Generate thesaurus/thesaurus.txt.gz again from EDICT and WordNet 3.0 (Debian's
# edict and wordnet-base, installed when missing and run as root); not part
# of make test, whose tests read the embedded table.
thesaurus:
	@if [ ! -f /usr/share/edict/edict ] || [ ! -f /usr/share/wordnet/data.noun ]; then \
		if [ "$$(id -u)" = 0 ]; then apt-get install -y edict wordnet-base; \
		else echo "thesaurus: install edict and wordnet-base (apt-get, as root)"; exit 1; fi; \
	fi
	$(GO) run $(GOFLAGS) ./cmd/thesaurusgen -o thesaurus/thesaurus.txt.gz

# Generate tokenize/english-forms.txt, the English irregular forms of
# Lexicon.Forms, again from WordNet 3.0's exception lists (Debian's
# wordnet-base, installed when missing and run as root); not part of make
# test, whose tests read the embedded table.
forms:
	@if [ ! -f /usr/share/wordnet/verb.exc ] || [ ! -f /usr/share/wordnet/index.verb ]; then \
		if [ "$$(id -u)" = 0 ]; then apt-get install -y wordnet-base; \
		else echo "forms: install wordnet-base (apt-get, as root)"; exit 1; fi; \
	fi
	$(GO) run $(GOFLAGS) ./cmd/formsgen -o tokenize/english-forms.txt

clean:
	rm -rf $(BIN)
