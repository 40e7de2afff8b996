#!/usr/bin/env bash
# What core/ promises for determinism, checked on its sources (CTest runs
# this): no floating point except Fixed's edge conversions (fixed.h,
# fixed.cc) and the C interface's raw helpers that call them
# (arbiter/c/arbiter.h, c_api/raw.cc), and nothing else in core/ calls
# them; no unordered containers, hashing of keys or pointer-derived
# ordering, whose iteration order could reach a result. Comment lines are
# skipped. Prints each offending line.
set -uo pipefail
core="${1:?usage: check_core_sources.sh CORE_DIR}"
status=0

# grep over core sources minus comment-only lines, minus allowed files.
scan() {
  local pattern="$1" allowed="$2"
  grep -rnE "$pattern" "$core/src" "$core/include" --include='*.h' --include='*.cc' |
    grep -vE '^[^:]+:[0-9]+:[[:space:]]*//' |
    { if [ -n "$allowed" ]; then grep -vE "$allowed"; else cat; fi; }
}

report() {
  local what="$1" hits="$2"
  if [ -n "$hits" ]; then
    echo "core/ $what:"
    echo "$hits"
    status=1
  fi
}

report "uses floating point outside Fixed's conversions" \
  "$(scan '\b(float|double)\b|std::(sqrt|sin|cos|tan|atan2?|pow|exp|log|hypot|fma)\b|<cmath>' '/fixed\.(h|cc):|/c/arbiter\.h:|/c_api/raw\.cc:')"
report "calls the double conversions" \
  "$(scan '\b(FromDouble|ToDouble|IsRepresentable)\b' '/fixed\.(h|cc):|/c/arbiter\.h:|/c_api/raw\.cc:')"
report "uses unordered containers, key hashing or pointer-derived order" \
  "$(scan 'unordered_(map|set|multimap|multiset)|std::hash\b|uintptr_t|intptr_t' '')"

if [ "$status" -eq 0 ]; then echo "core/: integer-only, no unordered iteration"; fi
exit "$status"
