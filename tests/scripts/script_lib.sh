# tests/scripts/script_lib.sh - sourced by the campaign test scripts (planted_one_new_class.sh,
# train_planted.sh, refusal_policy.sh): a temporary folder removed on exit
# ($tmp), the failure flag ($fail), jq required, and check WHAT GOT WANT printing a TAP-like line.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
command -v jq >/dev/null || { echo "not ok: needs jq"; exit 1; }
check() { # check WHAT GOT WANT
  if [ "$2" = "$3" ]; then echo "ok   $1: $2"; else echo "not ok $1: $2, expected $3"; fail=1; fi
}
