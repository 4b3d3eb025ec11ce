# Sourced by ./agentrun and .ci/run: installs what a fresh Debian/Ubuntu machine lacks.

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    echo "agentrun: need root to run: $*" >&2; return 1; fi
}

apt_install() {
  command -v apt-get >/dev/null || { echo "agentrun: please install $* (no apt-get here)" >&2; return 1; }
  echo "agentrun: installing $* from Debian packages"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >/dev/null 2>&1 || {
    as_root apt-get update -q >/dev/null &&
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >/dev/null
  }
}

# A real redis-server, unless REDIS_URL points at one already; redis-cli forms the tests' Redis Cluster.
ensure_redis_server() {
  [ -n "${REDIS_URL:-}" ] || command -v redis-server >/dev/null || apt_install redis-server
  command -v redis-cli >/dev/null || apt_install redis-tools
}

# The browser tests (WidgetIT, the SDK suites): Debian's Chromium and Node.js with npm (playwright-core comes from
# npm); npm also brings the OpenAPI linter (docs/lint: Redocly CLI, which needs Node.js 20.19+ or 22.12+).
ensure_browser_test_tools() {
  command -v chromium >/dev/null || [ -n "${CHROMIUM:-}" ] || apt_install chromium
  command -v node >/dev/null && command -v npm >/dev/null || apt_install nodejs npm
  node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 22 || (a === 22 && b >= 12) || (a === 20 && b >= 19) ? 0 : 1)' ||
    echo "agentrun: Node.js $(node --version) is older than the OpenAPI linter needs (20.19+ or 22.12+): OpenApiLintTest will fail" >&2
}

# JAVA_HOME -> a JDK >= 21, installing one from Debian packages when none is found.
ensure_jdk() {
  . "$(dirname "${BASH_SOURCE[0]}")/../.mvn/select-jdk.sh"
  if ! agentrun_select_jdk 2>/dev/null; then
    apt_install openjdk-21-jdk-headless || true
    agentrun_select_jdk
  fi
}
