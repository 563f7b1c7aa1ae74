# omoide — every target builds with the FTS5 tag: without it SQLite has no FTS5.
GO       ?= go
TAGS     := sqlite_fts5
GOFLAGS  := -tags=$(TAGS)
EVAL     ?= ../shared/eval
BIN      := bin

.PHONY: all build test demo bench eval race fuzz vet clean

all: build

build:
	$(GO) build $(GOFLAGS) -o $(BIN)/ ./cmd/...

vet:
	$(GO) vet $(GOFLAGS) ./...

# The test suite: vet, then every package's tests (goldens included).
test: vet
	$(GO) test $(GOFLAGS) ./...

# The main job: a temporary store from testdata/ja, a few questions, the rendered EPISODE_EVIDENCE.
demo:
	$(GO) run $(GOFLAGS) ./cmd/omoide demo

# A short latency run (cmd/bench latency) on generated episodes.
bench:
	$(GO) run $(GOFLAGS) ./cmd/bench latency -n 2000 -q 200

# The dev suites of ../shared/eval, when they exist.
eval:
	@if [ -d "$(EVAL)" ]; then $(GO) run $(GOFLAGS) ./cmd/bench eval -eval $(EVAL); \
	else echo "eval: $(EVAL) not found; skipping"; fi

race:
	$(GO) test $(GOFLAGS) -race ./...

# Fuzz each target for a bounded time (not part of make test).
FUZZTIME ?= 30s
fuzz:
	$(GO) test $(GOFLAGS) -run=^$$ -fuzz=FuzzMatchQuery -fuzztime=$(FUZZTIME) ./tokenize
	$(GO) test $(GOFLAGS) -run=^$$ -fuzz=FuzzNew -fuzztime=$(FUZZTIME) ./ngram

clean:
	rm -rf $(BIN)
