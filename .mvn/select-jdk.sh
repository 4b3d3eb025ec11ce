# Sourced (POSIX sh) by ./mvnw and ./agentrun: makes JAVA_HOME point at a JDK >= 21.
# The build targets Java 21; machines often default to an older `java`, so we look for a
# newer JDK beside it instead of failing with a cryptic "release 21 not supported".
agentrun_jdk_major() {
  # Major version of the JDK at $1, read from its `release` file (fast), else from `java -version`.
  _v=""
  if [ -f "$1/release" ]; then
    _v=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$1/release")
  fi
  if [ -z "$_v" ] && [ -x "$1/bin/java" ]; then
    _v=$("$1/bin/java" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n 1)
  fi
  printf '%s' "${_v:-0}"
}

agentrun_select_jdk() {
  _min=21
  if [ -n "${JAVA_HOME-}" ] && [ -x "$JAVA_HOME/bin/javac" ] && [ "$(agentrun_jdk_major "$JAVA_HOME")" -ge "$_min" ]; then
    return 0
  fi
  _best="" _best_major=0
  # mvnw runs with `set -f`; the search below needs globbing.
  case $- in *f*) _restore_noglob=1; set +f ;; *) _restore_noglob="" ;; esac
  for _home in /usr/lib/jvm/* /usr/java/* /opt/java/* /Library/Java/JavaVirtualMachines/*/Contents/Home \
      "$(dirname "$(dirname "$(readlink -f "$(command -v javac 2>/dev/null || echo /nonexistent)")")")"; do
    [ -x "$_home/bin/javac" ] || continue
    _major=$(agentrun_jdk_major "$_home")
    if [ "$_major" -ge "$_min" ] && [ "$_major" -gt "$_best_major" ]; then
      _best=$_home _best_major=$_major
    fi
  done
  [ -z "$_restore_noglob" ] || set -f
  if [ -z "$_best" ]; then
    echo "agentrun: no JDK >= $_min found (JAVA_HOME='${JAVA_HOME-}', searched /usr/lib/jvm and the javac on PATH)." >&2
    echo "agentrun: install one (e.g. 'apt-get install openjdk-21-jdk-headless' or Temurin 21+) or set JAVA_HOME to it." >&2
    return 1
  fi
  if [ -n "${JAVA_HOME-}" ] && [ "$JAVA_HOME" != "$_best" ]; then
    echo "agentrun: JAVA_HOME=$JAVA_HOME is older than Java $_min; using $_best (Java $_best_major)" >&2
  fi
  JAVA_HOME=$_best
  export JAVA_HOME
}
