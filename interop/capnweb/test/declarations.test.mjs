// sharevat.d.ts and the example type-check under the strict tsconfig with
// the declaration files checked too. (tsconfig.json sets skipLibCheck,
// because capnweb 0.12's own dist/index.d.ts does not check cleanly under
// TypeScript 5.9; skipLibCheck would skip sharevat.d.ts as well, so this
// test checks every declaration file and ignores only node_modules'.)
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const dir = join(dirname(fileURLToPath(import.meta.url)), "..");

test("sharevat.d.ts and example/ type-check, the declaration itself included", () => {
  const file = ts.readConfigFile(join(dir, "tsconfig.json"), ts.sys.readFile);
  assert.equal(file.error, undefined);
  const parsed = ts.parseJsonConfigFileContent(file.config, ts.sys, dir);
  assert.deepEqual(parsed.errors, []);
  assert.ok(parsed.fileNames.some((f) => f.endsWith("sharevat.d.ts")));
  const program = ts.createProgram(parsed.fileNames, { ...parsed.options, skipLibCheck: false, noEmit: true });
  const problems = ts.getPreEmitDiagnostics(program)
    .filter((d) => !d.file?.fileName.includes("/node_modules/"))
    .map((d) => ts.formatDiagnostic(d, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => dir, getNewLine: () => "\n" }));
  assert.deepEqual(problems, []);
});
