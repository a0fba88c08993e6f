// Writes interop/capnweb/sharevat.d.ts from src/wire.ts (the package's
// wire types), or with --check fails unless it is current. The
// declaration is the same text with a header saying where it comes from
// and the name SharevatError for WireError, which the interop suite uses.
//
//   npm run gen:interop            # or: node scripts/gen-interop.mjs --check
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const src = readFileSync(join(root, "src", "wire.ts"), "utf8");
const dest = join(root, "..", "..", "interop", "capnweb", "sharevat.d.ts");

const header = `// GENERATED from clients/typescript/src/wire.ts by
// \`npm run gen:interop\` in clients/typescript: do not edit here. The
// package @sharevat/client (clients/typescript) is the TypeScript client;
// this file is its wire types alone, for raw capnweb sessions:
//
//   import { newWebSocketRpcSession } from "capnweb";
//   import type { Vault } from "./sharevat";
//   const vault = newWebSocketRpcSession<Vault>("ws://127.0.0.1:7420/capnweb");
//   const { share, access } = await vault.restore(token);
//
`;
const body = src.replace(/^(\/\/.*\n)+\n/, "");
const want = header + "\n" + body + "\n/** A failed call's error, under the name this declaration always had. */\nexport type SharevatError = WireError;\n";

if (process.argv.includes("--check")) {
  let have = "";
  try {
    have = readFileSync(dest, "utf8");
  } catch {
    // missing: stale
  }
  if (have !== want) {
    console.error("interop/capnweb/sharevat.d.ts is stale: run `npm run gen:interop` in clients/typescript");
    process.exit(1);
  }
} else {
  writeFileSync(dest, want);
}
