// Runs an installed OpenClaw release's own config validation in-process, one config at a time,
// the way `openclaw config validate --json` does: the same snapshot function its
// `runConfigValidate` calls, with the config path in OPENCLAW_CONFIG_PATH and an isolated HOME.
// Nothing of OpenClaw is copied here: the functions are looked up by name in the installed
// package's own import lines, because their minified module names change with every release.
//
//   node validate_config.mjs <package folder> <requests.jsonl> <answers.jsonl>
//
// A request is {id, main, files: {relative path: text}, env: {NAME: value}}; an answer is
// {id, valid, issues: [{path, message}], warnings: [{path, message}]} or {id, error}.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [packageDir, requestsPath, answersPath] = process.argv.slice(2).map((p) => path.resolve(p));
const dist = path.join(packageDir, "dist");

// OpenClaw logs through console; the answers go to their own file, so stdout stays free for it.
function findConfigCli() {
  for (const name of fs.readdirSync(dist).sort()) {
    if (!/^config-cli-[^.]+\.(m?js)$/.test(name)) continue;
    const text = fs.readFileSync(path.join(dist, name), "utf8");
    if (text.includes("async function runConfigValidate(")) return { name, text };
  }
  throw new Error(`no runConfigValidate in ${dist}`);
}

// Where the config-cli module gets `wanted` from: a static `import { x as wanted } from "m"`,
// or a dynamic `const { wanted } = await import("m")` inside runConfigValidate.
function locate(cli, wanted) {
  for (const m of cli.text.matchAll(/import \{([^}]*)\} from "([^"]+)"/g)) {
    for (const spec of m[1].split(",").map((s) => s.trim())) {
      const [exported, local] = spec.includes(" as ") ? spec.split(" as ") : [spec, spec];
      if (local === wanted) return { module: m[2], exported };
    }
  }
  for (const m of cli.text.matchAll(/const \{([^}]*)\} = await import\("([^"]+)"\)/g)) {
    const names = m[1].split(",").map((s) => s.trim());
    if (names.includes(wanted)) return { module: m[2], exported: wanted };
  }
  return null;
}

async function load(cli, wanted) {
  const where = locate(cli, wanted);
  if (!where) return null;
  const mod = await import(pathToFileURL(path.join(dist, where.module)).href);
  return mod[where.exported];
}

// The snapshot step of runConfigValidate, in the form this release uses.
async function snapshotReader(cli) {
  const body = cli.text.slice(cli.text.indexOf("async function runConfigValidate("));
  const withMetadata = await load(cli, "readConfigFileSnapshotWithPluginMetadata");
  const finish = await load(cli, "finishConfigValidationForCli");
  const callsWithMetadata = /readConfigFileSnapshotWithPluginMetadata\(\{[^}]*prepareValidation: "strict"/.test(
    body.slice(0, 2000),
  );
  if (withMetadata && finish && callsWithMetadata) {
    return async () =>
      await finish(await withMetadata({ observe: false, prepareValidation: "strict" }));
  }
  const plain = await load(cli, "readConfigFileSnapshot");
  if (!plain || !/await readConfigFileSnapshot\(\)/.test(body.slice(0, 1000))) {
    throw new Error(`runConfigValidate of ${cli.name} has a form this driver does not know`);
  }
  return async () => await plain();
}

// Messages about includes name the absolute file; the folder is a fresh temporary one per
// config, so it is written as <config-dir> to keep the answers reproducible.
function simplify(list, configDir) {
  return (list ?? []).map((issue) => ({
    path: issue.path,
    message: String(issue.message).split(configDir).join("<config-dir>"),
  }));
}

const baseEnv = { ...process.env };
function resetEnv(extra) {
  for (const key of Object.keys(process.env)) if (!(key in baseEnv)) delete process.env[key];
  Object.assign(process.env, baseEnv, extra);
}

async function main() {
  const cli = findConfigCli();
  const read = await snapshotReader(cli);
  const normalize = await load(cli, "normalizeConfigIssues");
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "loopcfg-oc-"));
  process.chdir(scratch); // OpenClaw reads a .env from the working folder: keep it empty
  const requests = fs.readFileSync(requestsPath, "utf8").split("\n").filter(Boolean);
  const out = fs.openSync(answersPath, "w");
  let n = 0;
  for (const line of requests) {
    const request = JSON.parse(line);
    // A fresh folder per config: OpenClaw keeps per-path state (backups, last-known-good).
    const root = path.join(scratch, String(n++));
    const home = path.join(root, "home");
    const configDir = path.join(root, "cfg");
    fs.mkdirSync(home, { recursive: true });
    for (const [rel, text] of Object.entries(request.files)) {
      fs.mkdirSync(path.dirname(path.join(configDir, rel)), { recursive: true });
      fs.writeFileSync(path.join(configDir, rel), text);
    }
    resetEnv({
      ...request.env,
      HOME: home,
      OPENCLAW_CONFIG_PATH: path.join(configDir, request.main),
    });
    let answer;
    try {
      const snapshot = await read();
      const warnings = simplify(normalize(snapshot.warnings), configDir);
      answer = snapshot.valid
        ? { id: request.id, valid: true, issues: [], warnings }
        : { id: request.id, valid: false, issues: simplify(normalize(snapshot.issues), configDir), warnings };
      if (!snapshot.exists) answer = { id: request.id, error: "file not found" };
    } catch (err) {
      answer = { id: request.id, error: String(err) };
    }
    fs.writeSync(out, JSON.stringify(answer) + "\n");
    fs.rmSync(root, { recursive: true, force: true });
  }
  fs.closeSync(out);
  fs.rmSync(scratch, { recursive: true, force: true });
}

await main();
process.exit(0);
