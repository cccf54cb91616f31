/**
 * The packaged .vsix (npm run package) holds exactly the allow-listed files and stays under 1.25 MiB (1 MiB until three more frameworks and their generated pages).
 * Reads the zip's central directory itself (no unzip binary needed).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, statSync } from "node:fs";
import { inflateRawSync } from "node:zlib";
import { DIAGNOSTIC_CODES } from "../server/src/core/diagnostics/codes";

const pkg = JSON.parse(readFileSync("package.json", "utf8")) as { name: string; version: string; main: string };
const VSIX = `dist/${pkg.name}-${pkg.version}.vsix`;

/** Exact entries allowed; README/CHANGELOG are optional (vsce adds them when present). */
const REQUIRED = [
  "[Content_Types].xml",
  "extension.vsixmanifest",
  "extension/package.json",
  "extension/dist/client.js",
  "extension/dist/server.js",
  "extension/dist/server-main.js",
  "extension/dist/cli.js",
  "extension/dist/cli-main.js",
  "extension/syntaxes/toml.tmLanguage.json",
  "extension/syntaxes/toml.language-configuration.json",
  "extension/images/icon.png",
  "extension/LICENSE.txt",
];
const OPTIONAL = ["extension/readme.md", "extension/changelog.md"];
const DOCS_PAGE = /^extension\/docs\/diagnostics\/[A-Za-z0-9_/.-]+\.md$/;

interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  localOffset: number;
}

export function listZip(buf: Buffer): ZipEntry[] {
  // End of central directory record: signature 0x06054b50, at most 64 KiB + 22 bytes from the end.
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 65557); i--) {
    if (buf.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  assert.ok(eocd >= 0, "not a zip file (no end-of-central-directory record)");
  const count = buf.readUInt16LE(eocd + 10);
  let p = buf.readUInt32LE(eocd + 16);
  const out: ZipEntry[] = [];
  for (let i = 0; i < count; i++) {
    assert.equal(buf.readUInt32LE(p), 0x02014b50, "bad central directory entry");
    const method = buf.readUInt16LE(p + 10);
    const compressedSize = buf.readUInt32LE(p + 20);
    const nameLen = buf.readUInt16LE(p + 28);
    const extraLen = buf.readUInt16LE(p + 30);
    const commentLen = buf.readUInt16LE(p + 32);
    const localOffset = buf.readUInt32LE(p + 42);
    out.push({ name: buf.toString("utf8", p + 46, p + 46 + nameLen), method, compressedSize, localOffset });
    p += 46 + nameLen + extraLen + commentLen;
  }
  return out;
}

function readEntry(buf: Buffer, e: ZipEntry): Buffer {
  const nameLen = buf.readUInt16LE(e.localOffset + 26);
  const extraLen = buf.readUInt16LE(e.localOffset + 28);
  const start = e.localOffset + 30 + nameLen + extraLen;
  const data = buf.subarray(start, start + e.compressedSize);
  return e.method === 0 ? data : inflateRawSync(data);
}

const have = existsSync(VSIX);
const why = `${VSIX} is missing: run \`npm run package\` first`;

test("the .vsix holds only allow-listed files", { skip: !have && !process.env.CI ? why : false }, () => {
  assert.ok(have, why);
  const names = listZip(readFileSync(VSIX)).map((e) => e.name);
  // The diagnostic pages ship too: a diagnostic's code links to its page, opened offline in the editor.
  const unexpected = names.filter((n) => !REQUIRED.includes(n) && !OPTIONAL.includes(n.toLowerCase()) && !DOCS_PAGE.test(n));
  for (const code of ["no-mixed-precision", "accelerate/bare-no-boolean", ...Object.keys(DIAGNOSTIC_CODES)]) assert.ok(names.includes(`extension/docs/diagnostics/${code}.md`), `the page of ${code} is packaged`);
  assert.deepEqual(unexpected, [], `files outside the .vscodeignore allow-list: ${unexpected.join(", ")}`);
  const missing = REQUIRED.filter((n) => !names.includes(n));
  assert.deepEqual(missing, [], `required files missing from the .vsix: ${missing.join(", ")}`);
});

test("the .vsix is under 1.25 MiB and its manifest is the repo's package.json", { skip: !have && !process.env.CI ? why : false }, () => {
  assert.ok(have, why);
  const size = statSync(VSIX).size;
  assert.ok(size < 1.25 * 1024 * 1024, `${VSIX} is ${size} bytes (budget 1.25 MiB)`);
  const buf = readFileSync(VSIX);
  const manifest = listZip(buf).find((e) => e.name === "extension/package.json");
  assert.ok(manifest);
  const packed = JSON.parse(readEntry(buf, manifest).toString("utf8")) as typeof pkg;
  assert.equal(packed.main, "./dist/client.js");
  assert.equal(packed.version, pkg.version);
  // The bundles must not require anything that --no-dependencies left out.
  const client = readEntry(buf, listZip(buf).find((e) => e.name === "extension/dist/client.js")!).toString("utf8");
  const requires = [...client.matchAll(/\brequire\("([^"]+)"\)/g)].map((m) => m[1]!).filter((m) => !m.startsWith("node:"));
  const builtin = new Set(["vscode", "child_process", "crypto", "fs", "net", "os", "path", "util", "events", "url", "assert", "stream", "tty", "readline"]);
  assert.deepEqual([...new Set(requires.filter((m) => !builtin.has(m)))], [], "client bundle requires modules that are not in the .vsix");
});
