// Runs loopcfg traces through an installed OpenClaw release's own tool hook and prints what it did.
//
//   node record_engine.mjs MANIFEST.json ANSWERS.jsonl < jobs.jsonl
//
// MANIFEST names the release's dist modules (found by record_engine.py): the before-tool-call
// hook module, its lazily loaded runtime seam, and the module holding the post-compaction guard.
// Each input line is one job {"id", "config": <tools.loopDetection block or null>, "lines": [...]}
// whose lines are loopcfg trace lines (spec 06 §6.1). Nothing of OpenClaw is copied: the driver
// imports the installed dist and calls it; it only *observes* the detector, the outcome recorder
// and the loop-action log through the runtime seam object the hook itself reads them from.
import { readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { createInterface } from "node:readline";

const manifest = JSON.parse(readFileSync(process.argv[2], "utf8"));
const out = [];
const write = (obj) => out.push(JSON.stringify(obj));

// OpenClaw's loggers write to the console: keep them quiet (the answers go to a file).
for (const name of ["log", "info", "warn", "error", "debug", "trace"]) console[name] = () => {};
process.stdout.write = () => true;

function exportsOf(text) {
  // `export { local as alias, ... }` at the end of a bundled chunk: local name -> alias.
  const map = new Map();
  const match = text.match(/export \{([^}]*)\};?\s*$/);
  if (!match) return map;
  for (const part of match[1].split(",")) {
    const [local, alias] = part.trim().split(/\s+as\s+/);
    if (local) map.set(local, alias ?? local);
  }
  return map;
}

async function importNamed(file, names) {
  const text = readFileSync(file, "utf8");
  const exported = exportsOf(text);
  const module = await import(pathToFileURL(file).href);
  const found = {};
  for (const name of names) {
    const alias = exported.get(name);
    if (alias !== undefined) found[name] = module[alias];
  }
  return { found, text };
}

async function importedFrom(hookText, hookFile, localName) {
  // The hook module imports e.g. `{ m as normalizeToolName } from "./tool-policy-X.js"`.
  const re = /import \{([^}]*)\} from "\.\/([^"]+)"/g;
  for (const m of hookText.matchAll(re)) {
    for (const part of m[1].split(",")) {
      const [alias, local] = part.trim().split(/\s+as\s+/);
      if (local === localName) {
        const dir = hookFile.slice(0, hookFile.lastIndexOf("/") + 1);
        const module = await import(pathToFileURL(dir + m[2]).href);
        return module[alias];
      }
    }
  }
  return undefined;
}

function guardFactory(file) {
  // The guard is module-private in every release: evaluate its own region of the installed
  // dist, with a logger that tells us what it logs.
  const text = readFileSync(file, "utf8");
  const marker = /\/\/#region src\/agents\/[a-z-]+\/post-compaction-loop-guard\.ts\n/;
  const start = text.search(marker);
  if (start < 0) throw new Error(`no post-compaction guard in ${file}`);
  const end = text.indexOf("//#endregion", start);
  const region = text.slice(start, end);
  const make = new Function(
    "createSubsystemLogger",
    `${region}\nreturn createPostCompactionLoopGuard;`,
  );
  return make((subsystem) => {
    const entry = (level) => (message) => guardLog.push({ line: lineNo, level, message });
    return { info: entry("info"), warn: entry("warn"), error: entry("error"), debug: () => {} };
  });
}
let guardLog = [];
let lineNo = 0; // the trace line being run (1-based), stamped on guard log lines and aborts

const hook = await importNamed(manifest.hook, [
  "wrapToolWithBeforeToolCallHook",
  "admitToolCallBatch",
]);
const wrapTool = hook.found.wrapToolWithBeforeToolCallHook;
const admitBatch = hook.found.admitToolCallBatch;
const normalizeName =
  (await importedFrom(hook.text, manifest.hook, "normalizeToolName")) ??
  (await importedFrom(hook.text, manifest.hook, "normalizeToolPolicyName"));
const runtime = (await import(pathToFileURL(manifest.runtime).href)).beforeToolCallRuntime;
const createGuard = guardFactory(manifest.guard);
if (!wrapTool || !runtime || !normalizeName) throw new Error("hook, runtime or name map missing");

// --- observation through the runtime seam -------------------------------------------------
let capture = null; // what the current call (or batch) did
const original = { ...runtime };
runtime.detectToolCallLoop = (state, toolName, params, config, scope) => {
  const verdict = original.detectToolCallLoop(state, toolName, params, config, scope);
  capture?.detections.push({ toolName, verdict });
  return verdict;
};
runtime.logToolLoopAction = (entry) => {
  capture?.actions.push({ level: entry.level, action: entry.action, count: entry.count });
  return original.logToolLoopAction(entry);
};
runtime.recordToolCallOutcome = (state, params) => {
  const record = original.recordToolCallOutcome(state, params);
  capture?.outcomes.push({ toolCallId: params.toolCallId, record: record ? { ...record } : null });
  return record;
};

function argsHashOf(toolName, params, config) {
  // The release's own recordToolCall on a scratch state: its argsHash for these arguments.
  const scratch = {};
  original.recordToolCall(scratch, toolName, params, "scratch", config ?? {}, undefined);
  return scratch.toolCallHistory.at(-1).argsHash;
}

const normRun = (run) => (typeof run === "string" && run.trim() !== "" ? run.trim() : null);

function verdictFields(verdict) {
  if (!verdict || !verdict.stuck) return { level: "none" };
  return {
    level: verdict.level,
    detector: verdict.detector,
    count: verdict.count,
    message: verdict.message,
    warningKey: verdict.warningKey ?? null,
  };
}

// loopcfg's deliberate fix (04 §4.7): its own bucket is warningThreshold, not 10. Simulated here
// so the vectors can say what loopcfg emits where it deliberately differs.
function loopcfgEmits(buckets, key, count, threshold) {
  const bucket = Math.floor(count / threshold);
  if (bucket <= (buckets.get(key) ?? 0)) return false;
  buckets.set(key, bucket);
  if (buckets.size > 256) buckets.delete(buckets.keys().next().value);
  return true;
}

function positiveInt(value, fallback) {
  return typeof value === "number" && Number.isInteger(value) && value > 0 ? value : fallback;
}

// --- one job -----------------------------------------------------------------------------
let jobSerial = 0;

async function runJob(job) {
  jobSerial += 1;
  const config = job.config ?? undefined;
  const batchEngine = Boolean(admitBatch);
  const warningThreshold = batchEngine ? 10 : positiveInt(config?.warningThreshold, 10);
  const calls = [];
  const aborts = [];
  const guards = new Map(); // session \0 run -> guard
  const stopped = new Map(); // session \0 run (or session \0 *) -> reason
  const criticalSeen = new Set(); // E8.1 recovery: session \0 run
  const pending = []; // calls waiting for an outcome line
  const loopcfgBuckets = new Map(); // session -> Map
  const dropped = [];
  guardLog = [];
  lineNo = 0;
  let callIndex = new Map(); // session -> count

  const sessionKeyOf = (session) => `loopcfg-conf-${process.pid}-${jobSerial}-${session}`;
  const guardOf = (session, run) => {
    const key = `${session}\0${run ?? ""}`;
    if (!guards.has(key)) {
      const options = { enabled: config?.enabled !== false };
      guards.set(
        key,
        createGuard.length >= 2 ? createGuard(config?.postCompactionGuard, options) : createGuard(options),
      );
    }
    return guards.get(key);
  };
  const isStopped = (session, run) =>
    stopped.has(`${session}\0${run ?? ""}`) || stopped.has(`${session}\0*`);
  const stop = (session, run) => stopped.set(run === null ? `${session}\0*` : `${session}\0${run}`, true);

  const ctxOf = (session, rawRun) => {
    const run = normRun(rawRun);
    const key = sessionKeyOf(session);
    return {
      sessionKey: key,
      sessionId: key,
      agentId: "main",
      ...(rawRun !== undefined && rawRun !== null ? { runId: rawRun } : {}),
      loopDetection: config,
      onToolOutcome: (observation) => {
        const verdict = guardOf(session, run).observe(observation);
        if (verdict.shouldAbort && !isStopped(session, run)) {
          aborts.push({
            line: lineNo,
            session,
            run: rawRun ?? null,
            tool: verdict.toolName,
            count: verdict.count,
            code: verdict.detector,
            message: verdict.message,
          });
          stop(session, run);
        }
      },
    };
  };

  // A fake tool per call: its execute() waits until the trace says how the call ended.
  const makeCall = (entry, ctx) => {
    let started;
    const startedPromise = new Promise((resolve) => (started = resolve));
    let finish;
    const tool = {
      name: entry.tool,
      execute: (_id, _params) =>
        new Promise((resolve, reject) => {
          finish = { resolve, reject };
          started(true);
        }),
    };
    const wrapped = wrapTool(tool, ctx);
    return { wrapped, startedPromise, finishOf: () => finish };
  };

  const settle = async (call, line) => {
    const finish = call.finishOf();
    const hasResult = Object.hasOwn(line, "result");
    if (hasResult) finish.resolve(line.result);
    else finish.reject(typeof line.error === "string" ? line.error : String(line.error));
    capture = { detections: [], actions: [], outcomes: [] };
    try {
      await call.done;
    } catch {
      // the hook re-throws the tool's error after recording it
    }
    const recorded = capture.outcomes.at(-1)?.record;
    call.entry.resultHash = recorded?.resultHash ?? null;
    if (recorded?.outcomeKind) call.entry.outcomeKind = recorded.outcomeKind;
    if (recorded?.failureIdentityHash) call.entry.failureIdentityHash = recorded.failureIdentityHash;
    capture = null;
  };

  const describe = (line, session, rawRun, detection, actions, extra) => {
    const index = (callIndex.get(session) ?? 0) + 1;
    callIndex.set(session, index);
    const toolName = detection?.toolName ?? normalizeName(line.tool || "tool");
    const fields = verdictFields(detection?.verdict);
    const entry = {
      line: lineNo,
      session,
      call: index,
      tool: toolName,
      ...fields,
      argsHash: argsHashOf(toolName, line.args, config),
      resultHash: null,
      ...extra,
    };
    if (fields.level === "warning") {
      entry.emitted = actions.some((a) => a.level === "warning");
      if (!batchEngine && warningThreshold !== 10) {
        if (!loopcfgBuckets.has(session)) loopcfgBuckets.set(session, new Map());
        const key = rawRun ? `${rawRun}:${fields.warningKey}` : fields.warningKey;
        const fixed = loopcfgEmits(loopcfgBuckets.get(session), key, fields.count, warningThreshold);
        if (fixed !== entry.emitted) entry.loopcfgEmitted = fixed;
      }
    } else if (fields.level === "critical") entry.emitted = true;
    if (rawRun !== undefined && rawRun !== null) entry.run = rawRun;
    if (session === "default") delete entry.session;
    calls.push(entry);
    return entry;
  };

  // Single-call path (E5.4 - E6.5): the wrapped tool's execute runs the hook, then the tool.
  const runSingle = async (line, session) => {
    const rawRun = line.run;
    const ctx = ctxOf(session, rawRun);
    const call = makeCall(line, ctx);
    capture = { detections: [], actions: [], outcomes: [] };
    const id = line.id ?? `loopcfg-call-${lineNo}`;
    call.done = call.wrapped.execute(id, line.args, undefined, undefined);
    call.done.catch(() => {});
    const blockedResult = await Promise.race([call.startedPromise.then(() => null), call.done.then((r) => r, () => null)]);
    const seen = capture;
    capture = null;
    const blocked = blockedResult !== null && blockedResult?.details?.deniedReason === "tool-loop";
    const entry = describe(line, session, rawRun, seen.detections.at(-1), seen.actions, {});
    if (blocked) {
      entry.blocked = true;
      // E5.4/E5.12 record the veto result as an outcome (09 §9.1 item 2): keep its hash.
      const recorded = seen.outcomes.at(-1)?.record;
      entry.resultHash = recorded?.resultHash ?? null;
      if (Object.hasOwn(line, "result") || Object.hasOwn(line, "error")) dropped.push(lineNo);
      return;
    }
    call.entry = entry;
    call.id = id;
    call.run = normRun(rawRun);
    call.session = session;
    call.line = line;
    if (Object.hasOwn(line, "result") || Object.hasOwn(line, "error")) await settle(call, line);
    else pending.push(call);
  };

  // Batch path (E8.1): admission of the whole batch, then the admitted calls run.
  const runBatch = async (lines, session) => {
    const rawRun = lines[0].run;
    const run = normRun(rawRun);
    const ctx = ctxOf(session, rawRun);
    const firstLine = lineNo - lines.length + 1;
    const ids = lines.map((line, k) => line.id ?? `loopcfg-call-${firstLine + k}`);
    const batch = lines.map((line, k) => ({ toolCall: { id: ids[k], name: line.tool }, args: line.args }));
    capture = { detections: [], actions: [], outcomes: [] };
    const admission = await admitBatch(batch, ctx);
    const seen = capture;
    capture = null;
    const intervention = admission?.intervention;
    const batchName = lines[0].batch ?? null;
    const entries = [];
    for (let k = 0; k < lines.length; k += 1) {
      lineNo = firstLine + k;
      const detection = seen.detections[k];
      entries.push(describe(lines[k], session, rawRun, detection, [], batchName === null ? {} : { batch: batchName }));
    }
    // emitted warnings: admission returns one entry per emitted warning, by call id
    const warned = new Set((admission?.warnings ?? []).map((w) => w.toolCallId));
    entries.forEach((entry, k) => {
      if (entry.level === "warning") entry.emitted = warned.has(ids[k]);
    });
    lineNo = firstLine + lines.length - 1;
    if (intervention) {
      const runKey = `${session}\0${run ?? ""}`;
      const recovery = criticalSeen.has(runKey) ? "terminated" : "recovery";
      criticalSeen.add(runKey);
      entries.forEach((entry, k) => {
        entry.blocked = true;
        entry.trigger = ids[k] === intervention.toolCallId;
        entry.recovery = recovery;
        if (Object.hasOwn(lines[k], "result") || Object.hasOwn(lines[k], "error")) dropped.push(entry.line);
      });
      if (recovery === "terminated") {
        aborts.push({
          line: lineNo,
          session,
          run: rawRun ?? null,
          tool: intervention.toolName,
          count: intervention.count,
          code: "run_terminated",
          message:
            "OpenClaw stopped this run because tool-loop recovery encountered another critical loop. No blocked tool action was executed.",
        });
        stop(session, run);
      }
      return;
    }
    admission?.commitReadyCalls?.(lines.map((line, k) => ({ toolCallId: ids[k], args: line.args })));
    for (let k = 0; k < lines.length; k += 1) {
      const line = lines[k];
      const call = makeCall(line, ctxOf(session, rawRun));
      call.done = call.wrapped.execute(ids[k], line.args, undefined, undefined);
      call.done.catch(() => {});
      await Promise.race([call.startedPromise, call.done.then(() => null, () => null)]);
      call.entry = entries[k];
      call.entry.blocked = false;
      call.id = ids[k];
      call.run = run;
      call.session = session;
      call.line = line;
      if (Object.hasOwn(line, "result") || Object.hasOwn(line, "error")) {
        lineNo = firstLine + k;
        await settle(call, line);
        if (isStopped(session, run)) break;
      } else pending.push(call);
    }
    lineNo = firstLine + lines.length - 1;
  };

  const lines = job.lines;
  let k = 0;
  while (k < lines.length) {
    const line = lines[k];
    lineNo = k + 1;
    const session = line.session ?? "default";
    if (line.type === "compaction") {
      if (!isStopped(session, normRun(line.run))) guardOf(session, normRun(line.run)).armPostCompaction();
      k += 1;
      continue;
    }
    if (line.type === "config") {
      k += 1;
      continue;
    }
    if (line.type === "outcome") {
      const run = normRun(line.run);
      let found = -1;
      for (let j = pending.length - 1; j >= 0; j -= 1) {
        const p = pending[j];
        if (p.session !== session || p.run !== run) continue;
        if (line.id !== undefined ? p.id === line.id : p.line.tool === line.tool && JSON.stringify(p.line.args) === JSON.stringify(line.args)) {
          found = j;
          break;
        }
      }
      if (found < 0 || isStopped(session, run)) {
        dropped.push(lineNo);
        k += 1;
        continue;
      }
      const [call] = pending.splice(found, 1);
      await settle(call, line);
      call.entry.outcomeLine = lineNo;
      k += 1;
      continue;
    }
    // a call line (or the first line of a batch)
    let group = [line];
    if (batchEngine && line.batch !== undefined) {
      let j = k + 1;
      while (
        j < lines.length &&
        lines[j].type === undefined &&
        lines[j].batch === line.batch &&
        (lines[j].session ?? "default") === session
      )
        j += 1;
      group = lines.slice(k, j);
    }
    const run = normRun(line.run);
    if (isStopped(session, run)) {
      for (let g = 0; g < group.length; g += 1) {
        const index = (callIndex.get(session) ?? 0) + 1;
        callIndex.set(session, index);
        calls.push({ line: k + g + 1, ...(session === "default" ? {} : { session }), call: index, skipped: true });
      }
      k += group.length;
      continue;
    }
    if (batchEngine) {
      lineNo = k + group.length;
      await runBatch(group, session);
    } else await runSingle(line, session);
    k += group.length;
  }
  for (const call of calls) delete call.warningKey;
  return {
    id: job.id,
    calls,
    aborts,
    guardLog,
    dropped,
  };
}

const input = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const text of input) {
  if (!text.trim()) continue;
  const job = JSON.parse(text);
  let answer;
  try {
    answer = await runJob(job);
  } catch (error) {
    answer = { id: job.id, error: String(error?.stack ?? error) };
  }
  write(answer);
}
writeFileSync(process.argv[3], out.join("\n") + "\n");
process.exit(0);
