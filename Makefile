# Lantern: set-up, run and test. `make run` opens the app; `make test` runs the tests.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
COURSE := courses/esp32-starter
BUNDLE := corpus_bundle/esp32-starter.sqlite
MODELS_STAMP := models/.verified
# An optional chat model of models/manifest.json (`python3 scripts/fetch_models.py --list`), e.g.
# `make models MODEL=qwen2.5-coder-0.5b`; empty: only the default models.
MODEL  :=

.PHONY: setup models bundle run test lint clean dist package

setup: $(STAMP)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# llama-cpp-python comes from a portable-CPU wheel built once per machine and cached
# (scripts/llama_wheel.sh); everything else from the package index.
$(STAMP): pyproject.toml scripts/llama_wheel.sh | $(BIN)/python
	wheel="$$(PYTHON=$(BIN)/python scripts/llama_wheel.sh)" && $(BIN)/python -m pip install --quiet --no-deps --force-reinstall "$$wheel"
	$(BIN)/python -m pip install --quiet -e ".[test]"
	touch $(STAMP)

$(MODELS_STAMP): models/manifest.json scripts/fetch_models.py | $(STAMP)
	$(BIN)/python scripts/fetch_models.py
	touch $(MODELS_STAMP)

# MODEL has no stamp: its file is checked (sha256, under a second) and repaired on every run.
models: $(MODELS_STAMP)
ifneq ($(MODEL),)
	$(BIN)/python scripts/fetch_models.py --model $(MODEL)
endif

# Also rebuilt when the code that decides the bundle's contents changes (chunking, tokenizer,
# schema): an older bundle would be refused by the app. Rebuilds reuse unchanged vectors.
$(BUNDLE): $(MODELS_STAMP) $(shell find $(COURSE) -type f 2>/dev/null) $(wildcard app/ingest/*.py) \
		app/text/tokenize.py app/text/lexical.py app/bundle/schema.py app/bundle/builder.py
	$(BIN)/lantern build $(COURSE) -o $(BUNDLE) --title "ESP32 Starter Lab"

bundle: $(BUNDLE)

run: $(BUNDLE)
	$(BIN)/lantern --bundle $(BUNDLE)

# pytest exits 5 when it collected no tests: that is a failure here, not a pass.
test: $(BUNDLE)
	$(BIN)/python -m pytest; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest collected no tests: failing" >&2; exit 1; fi; exit $$rc

# Static checks: ruff (pyflakes, import order, pycodestyle, complexity C90) on app/ and tests/, mypy (types) on app/,
# no import cycle between modules of app/ (scripts/import_cycles.py), no module over 400 lines and no
# function over 60 (scripts/size_limits.py);
# settings in pyproject.toml.
lint: $(STAMP)
	$(BIN)/ruff check app
	$(BIN)/ruff check tests
	$(BIN)/mypy app
	$(BIN)/python scripts/import_cycles.py app
	$(BIN)/python scripts/size_limits.py app

# One-folder installer in dist/lantern/ with the default models and BUNDLE (docs/instructors.md).
# `make dist BUNDLE=corpus_bundle/other.sqlite` ships another course (build that bundle first);
# `make dist MODEL=<id>` ships that optional chat model instead of the default one, as the installer's default.
dist: models
	@test -f "$(BUNDLE)" || { echo "The bundle $(BUNDLE) does not exist; run \`make bundle\` or \`lantern build COURSE -o $(BUNDLE)\` first." >&2; exit 1; }
	$(BIN)/python -m pip install --quiet "pyinstaller>=6.22,<7"
	LANTERN_QT_BIN=$(BIN) scripts/translations.sh release  # the window's .qm from its .ts (committed too)
	LANTERN_DIST_BUNDLE="$(BUNDLE)" LANTERN_DIST_MODEL="$(MODEL)" $(BIN)/pyinstaller --noconfirm --clean --log-level WARN build.spec
	du -sh dist/lantern

# Debian package of the installer above (run `make dist` first): dist/lantern_VERSION_ARCH.deb with the app
# in /opt/lantern, `lantern` on the PATH, a menu entry and the course in /usr/share/lantern/courses
# (scripts/package_deb.py, docs/instructors.md). Built with dpkg-deb from local files only.
package:
	$(PYTHON) scripts/package_deb.py

clean:
	rm -rf $(VENV) $(BUNDLE) models/.verified build dist
