#!/usr/bin/env bash
# Installs the E2E harness (code-server 4.100.3 + playwright-core + @vscode/test-electron) offline.
# Needs Debian packages: chromium ripgrep libkrb5-dev pkg-config fonts-dejavu-core (and neovim for test/neovim.test.ts).
# Workarounds (see shared spec e2e-vscode.md section 2):
#   - @vscode/ripgrep's postinstall downloads rg from GitHub; pre-seed its cache with Debian's rg.
#   - code-server's postinstall refuses to run as root without unsafe-perm; node-pty needs npx --yes.
set -euo pipefail
cd "$(dirname "$0")"
RG_VERSION=1.15.11        # @vscode/ripgrep version used by code-server 4.100.3's lib/vscode
RG_TAG=v13.0.0-10         # its VERSION constant
command -v rg >/dev/null || { echo "setup.sh: ripgrep (apt-get install ripgrep) is required" >&2; exit 1; }
TMPROOT="$(node -p 'require("os").tmpdir()')"
CACHE="$TMPROOT/vscode-ripgrep-cache-$RG_VERSION"
mkdir -p "$CACHE"
ARCHIVE="$CACHE/ripgrep-$RG_TAG-x86_64-unknown-linux-musl.tar.gz"
if [ ! -s "$ARCHIVE" ]; then
  tar -C "$(dirname "$(command -v rg)")" -czf "$ARCHIVE" rg
fi
# code-server's postinstall reads npm_config_unsafe_perm from its environment; npm itself no longer knows the
# option and warns 'Unknown env config "unsafe-perm"' for every npm it starts. That one warning is dropped
# from the output (every other line, and npm's exit status, pass through).
export npm_config_unsafe_perm=true npm_config_yes=true
npm "${1:-ci}" --no-audit --no-fund 2> >(grep -v 'config "unsafe-perm"' >&2) | grep -v 'config "unsafe-perm"' || test "${PIPESTATUS[0]}" -eq 0
test -x node_modules/code-server/lib/vscode/node_modules/@vscode/ripgrep/bin/rg || { echo "setup.sh: ripgrep binary missing after install" >&2; exit 1; }
echo "e2e harness ready: $(node -p 'require("code-server/package.json").version') code-server, playwright-core $(node -p 'require("playwright-core/package.json").version')"
