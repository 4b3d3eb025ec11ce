# Sourced before a README's shell examples by ReadmeExamplesIT (with KEY, ADMIN, README_VARS, README_OUT and
# README_EXPECT in the environment). The examples run as written; only `curl` is this function, which calls the real
# one and, as a reader does between two commands:
#   - fails the run when the answer is an HTTP error (--fail-with-body) or lacks what the README says it prints
#     (README_EXPECT/<block>.<n>: one fragment a line, from the comments under the command); a GET whose answer does
#     not show it yet is asked again, for up to 20 s (the README shows a state the run reaches a moment later);
#   - sets the variables the README names (README_VARS, e.g. RUN_ID) from the answer's fields of the same name
#     (run_id, or signedUrl for SIGNED_URL): the README says to copy them from the answer above.
set -uo pipefail
__block=none
__calls=0

readme_block() {
  __block=$1
  __calls=0
}

__is_get() {
  local arg
  for arg in "$@"; do
    case "$arg" in
      -d|--data|--data-*|-F|--form|-T|--upload-file) return 1 ;;
      -X|--request) return 1 ;;
    esac
  done
  return 0
}

__shows() {
  local out=$1 expect=$2 fragment
  [ -f "$expect" ] || return 0
  while IFS= read -r fragment; do
    [ -z "$fragment" ] && continue
    grep -qF -- "$fragment" "$out" || { echo "README block $__block, command $__calls: the answer lacks $fragment" >> "$out.why"; return 1; }
  done < "$expect"
  return 0
}

__harvest() {
  local out=$1 name snake camel value
  for name in $README_VARS; do
    snake=${name,,}
    camel=$(printf '%s' "$snake" | sed -E 's/_(.)/\U\1/g')
    value=$(grep -oE "\"($snake|$camel)\":\"[^\"]*\"" "$out" | tail -n 1 | sed -E 's/^"[^"]*":"(.*)"$/\1/')
    if [ -n "$value" ]; then
      printf -v "$name" '%s' "$value"
      export "$name"
    fi
  done
}

curl() {
  __calls=$((__calls + 1))
  local out="$README_OUT/$__block.$__calls" expect="$README_EXPECT/$__block.$__calls" status deadline=$((SECONDS + 20))
  while :; do
    rm -f "$out.why"
    command curl -sS --fail-with-body --max-time 120 "$@" > "$out" 2> "$out.err"
    status=$?
    if [ $status -eq 0 ] && __shows "$out" "$expect"; then
      break
    fi
    if [ $status -ne 0 ] || ! __is_get "$@" || [ $SECONDS -ge $deadline ]; then
      echo "README block $__block, command $__calls failed (curl exit $status): curl $*"
      cat "$out.why" "$out.err" 2> /dev/null
      echo "--- its answer:"
      head -c 4000 "$out"
      exit 1
    fi
    sleep 0.2   # the poll interval of a deadline-bounded wait, as Awaitility's
  done
  cat "$out"
  echo
  __harvest "$out"
}
