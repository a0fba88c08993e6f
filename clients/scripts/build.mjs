// build.mjs: the prepare script of the packages in clients/ (run by npm
// on `npm ci`/`npm install` in the workspace, `npm pack`, `npm publish`,
// and `npm install <the package's directory>`): runs the pinned
// TypeScript compiler on the tsconfig named by the first argument. The
// compiler is a devDependency, which npm does not install for a
// directory installed by path: without it the script says what to run
// instead of failing on "tsc: not found".
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";

const config = process.argv[2] ?? "tsconfig.json";
let tsc;
try {
  tsc = createRequire(path.join(process.cwd(), "package.json")).resolve("typescript/bin/tsc");
} catch {
  console.error(`build: the TypeScript compiler is not installed in ${process.cwd()}: run \`npm ci\` in sharevat's clients/ directory (the npm workspace), then install again`);
  process.exit(1);
}
const r = spawnSync(process.execPath, [tsc, "-p", config], { stdio: "inherit" });
process.exit(r.status ?? 1);
