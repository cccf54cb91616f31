/** The language server (dist/server.js): runs dist/server-main.js (server.ts) from a V8 code cache (host/codeCache.ts). */
import { join } from "node:path";
import { runBundle } from "./host/codeCache";

// Written a few seconds in, once the first documents are analysed: an editor may end the server by a signal.
runBundle(join(__dirname, "server-main.js"), { name: "server", writeAfterMs: 5000 });
