// copy-license.mjs: the prepack (and, with --remove, postpack) script of
// the packages in clients/. A package ships the repository's LICENSE
// (npm includes a LICENSE file of the package's root whatever `files`
// says), so prepack copies ../../LICENSE into the package's directory and
// postpack removes the copy. Run from the package's directory, as npm
// runs lifecycle scripts.
import fs from "node:fs";
import path from "node:path";

const copy = path.resolve("LICENSE");
if (process.argv.includes("--remove")) {
  fs.rmSync(copy, { force: true });
} else {
  const src = path.resolve("..", "..", "LICENSE");
  if (!fs.existsSync(src)) {
    console.error(`copy-license: ${src} is missing: the package must ship the repository's LICENSE`);
    process.exit(1);
  }
  fs.copyFileSync(src, copy);
}
