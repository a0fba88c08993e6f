// Prints the shape of src/wire.ts as JSON, for schema_test.go to compare
// with schema/sharevat.capnp: every interface's methods (parameter names,
// and the property names of an object result), every type's property
// names, and every union of string literals' members.
//
//   node scripts/wire-shape.mjs > shape.json
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const file = join(dirname(fileURLToPath(import.meta.url)), "..", "src", "wire.ts");
const program = ts.createProgram([file], { strict: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, skipLibCheck: true });
const checker = program.getTypeChecker();
const source = program.getSourceFile(file);
if (!source) throw new Error(`cannot read ${file}`);

/** @type {{interfaces: Record<string, Record<string, {params: string[], result: string[] | null}>>, types: Record<string, string[]>, unions: Record<string, string[]>}} */
const shape = { interfaces: {}, types: {}, unions: {} };

/** The property names of t when it is a plain object type (not a capability, array or Date), else null. */
function props(t) {
  if (t.isUnion() || checker.isArrayType(t) || !(t.flags & ts.TypeFlags.Object)) return null;
  const names = checker.getPropertiesOfType(t).map((p) => p.getName());
  const sym = t.getSymbol();
  if (sym && ["Date", "Promise"].includes(sym.getName())) return null;
  return names.sort();
}

/** T of Promise<T>. */
function awaited(t) {
  return checker.getAwaitedType(t) ?? t;
}

for (const stmt of source.statements) {
  if (ts.isInterfaceDeclaration(stmt)) {
    const name = stmt.name.text;
    const isCap = (stmt.heritageClauses ?? []).some((h) => h.types.some((x) => x.expression.getText(source) === "RpcTarget"));
    if (isCap || name === "OpSink") {
      /** @type {Record<string, {params: string[], result: string[] | null}>} */
      const methods = {};
      for (const m of stmt.members) {
        if (!ts.isMethodSignature(m)) continue;
        const sig = checker.getSignatureFromDeclaration(m);
        const result = sig ? props(awaited(checker.getReturnTypeOfSignature(sig))) : null;
        methods[m.name.getText(source)] = { params: m.parameters.map((p) => p.name.getText(source)), result };
      }
      shape.interfaces[name] = methods;
      continue;
    }
  }
  if (ts.isInterfaceDeclaration(stmt) || ts.isTypeAliasDeclaration(stmt)) {
    const name = stmt.name.text;
    const t = checker.getTypeAtLocation(stmt.name);
    if (t.isUnion() && t.types.every((x) => x.isStringLiteral())) {
      shape.unions[name] = t.types.map((x) => /** @type {ts.StringLiteralType} */ (x).value).sort();
      continue;
    }
    const p = props(t);
    if (p) shape.types[name] = p;
  }
}
process.stdout.write(JSON.stringify(shape, null, 1) + "\n");
