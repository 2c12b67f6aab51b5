#!/bin/sh
# ctest python_mypy_strict (issue 31): mypy --strict over the package python/tfspec (the stubs of
# the compiled module and of the generated op functions included) and the example adapter.
# Skipped, saying why, where no python3 on the PATH imports mypy (scripts/setup.sh installs it).
# usage: mypy_check.sh SOURCE_DIR
src=$1
for py in python3 /usr/bin/python3; do
  if "$py" -c "import mypy" 2>/dev/null; then
    cd "$src" || exit 1
    MYPYPATH="$src/python" exec "$py" -m mypy --strict --no-incremental python/tfspec conformance/examples/layout_adapter.py
  fi
done
echo "SKIPPED: python_mypy_strict: no python3 imports mypy (python3 -m pip install mypy)"
exit 77
