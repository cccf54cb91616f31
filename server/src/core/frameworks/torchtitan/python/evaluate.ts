/**
 * Static evaluation of a torchtitan config function: a small safe subset of Python, read, never run.
 * Followed: keyword arguments of `Trainer.Config(...)` and of the section configs (TrainingConfig,
 * ParallelismConfig, CompileConfig, OptimizersContainer.Config, the activation-checkpoint and converter
 * configs); `config = other()` chains within the module and across workspace modules (imports resolved to
 * files through AnalysisEnv.readFile, bounded depth); attribute assignments
 * (`config.parallelism.tensor_parallel_degree = 2`); module constants; int/str arithmetic. Everything else
 * (a loop, an `if`, a helper of unknown effect) is recorded as "not followed" with its place, and the
 * fields it could change count as unknown, never guessed.
 */
import type { AnalysisEnv } from "../../../analysis";
import { type PyExpr, type PyFunction, type PyModule, type PyStmt } from "../../../parse/python";
import { parsedModule } from "../../../parse/pyModuleCache";
import type { Range } from "../../../model/types";
import { dirname, join } from "../../../workspace/paths";
import { AC_CLASSES, AC_DEFAULT, CONVERTER_CLASSES, CONVERTER_CONTAINERS, KNOWN_HELPERS, PY_FIELDS, SECTION_CLASSES, type PyFieldSpec } from "./schema";

/** How many nested calls are followed (`a()` calls `b()` calls `c()` ...); registries chain 2-3 deep. */
export const MAX_CALL_DEPTH = 8;
/**
 * The work budget of one evaluation (issue #33): every statement, every expression node, every value built
 * and every node copied (`copy.deepcopy`, a module value handed to a function) costs one unit, checked where
 * the work is done (inside expressions, not per statement). One config function's evaluation has this
 * budget, and so has each module-level name's (computed once per module version and anchor, then shared):
 * what a function's evaluation costs depends on its own inputs only, never on which function ran first.
 */
export const MAX_EVAL_STEPS = 10_000;
/** Workspace modules one config function's evaluation may use (the parsed modules themselves are shared). */
export const MAX_MODULES = 24;
/**
 * All evaluation work of one analysis (every function and every module-level name together). Past it the
 * remaining evaluations are "too complex to follow". The largest real registry of the corpus takes 968 steps in
 * all and 153 for its largest function (20 registries, 143 functions); 400,000 is 2,600 such functions.
 */
export const MAX_ANALYSIS_STEPS = 400_000;
/** Module-level values remembered per analysis (name × call depth × anchor). */
export const MAX_MODULE_MEMO = 4_096;

/**
 * The reason given for every value whose evaluation ran out of budget. The comma is put in by hand: a
 * `toLocaleString` here ran at every start of the CLI and the server and loaded ICU's number formatting,
 * 12–17 ms of CPU against ~100 ms for all of `node -e 0` (issue #36, docs/performance.md "fifth pass: CLI").
 */
export const TOO_COMPLEX = `too complex to follow (the evaluation budget of ${String(MAX_EVAL_STEPS).replace(/\B(?=(\d{3})+(?!\d))/g, ",")} steps ran out)`;

/** Thrown where the budget runs out; caught where an evaluation (a function, a module-level name) starts. */
class OutOfBudget extends Error {}

export interface Origin {
  /** The file (absolute path, or the document's uri for the document itself). */
  file: string;
  range: Range;
  /** Where in the analysed document this value arrived (the call site of the chain, or `range` itself). */
  anchor: Range;
  /** The function the value was written in, when not the analysed one. */
  via?: string;
  /**
   * Where the string literal the value was written as stands (a call site's `"bfloat16"` passed to a helper's
   * parameter, a module constant): a quick fix rewrites that literal, never a shared helper's parameter.
   */
  literal?: { file: string; range: Range };
}

export type Val =
  | { t: "scalar"; v: string | number | boolean | null; at: Origin }
  | { t: "list"; items: Val[]; at: Origin }
  /** A config object. `partial` says why fields not set here are unknown (a base not followed). */
  | { t: "obj"; cls: string; fields: Map<string, Val>; at: Origin; partial?: string; owner?: object }
  | { t: "fn"; fn: PyFunction; mod: LoadedModule }
  | { t: "unknown"; why: string; at: Origin };

export interface NotFollowed {
  what: string;
  text: string;
  file: string;
  range: Range;
  anchor: Range;
  via?: string;
}

export interface FieldValue {
  spec: PyFieldSpec;
  state: "set" | "default" | "unknown";
  value?: string | number | boolean | null | string[];
  origin?: Origin;
  /** For unknown: why. */
  why?: string;
}

export interface EvaluatedConfig {
  fn: PyFunction;
  /** "training.dtype" → its value. */
  fields: Map<string, FieldValue>;
  notFollowed: NotFollowed[];
  /** Functions followed, outermost first ("llama3_8b in torchtitan/models/llama3/config_registry.py"). */
  chain: string[];
  activationCheckpoint: { mode: string; origin?: Origin; source?: string; unknown?: string };
  converters: { name: string; kind: string; origin: Origin }[] | { unknown: string };
  /**
   * The model of `model_spec=model_registry("8B")`: the flavor is the call's first argument, the name the
   * package `model_registry` is imported from (`from . import model_registry` in torchtitan/models/llama3/,
   * `from torchtitan.models.llama3 import model_registry`). Absent when model_spec is not such a call.
   */
  model?: { name?: string; flavor?: string };
  /** Why fields the function does not set are not known (a base config that was not followed). */
  partial?: string;
  /** Set when the function returned something that is not a Trainer.Config the subset can read. */
  unreadable?: string;
  /** Set when the evaluation ran out of its budget (MAX_EVAL_STEPS): the fields it could not reach are unknown. */
  tooComplex?: string;
}

export interface LoadedModule {
  module: PyModule;
  /** The document's uri for the analysed document, else the absolute path. */
  file: string;
  /** Absolute path, when on disk (for relative imports). */
  path?: string;
  isRoot: boolean;
}

interface Scope {
  locals: Map<string, Val>;
  mod: LoadedModule;
  depth: number;
  /** The anchor in the analysed document for everything evaluated under this call. */
  anchor?: Range;
  via?: string;
}

/** A module-level name's value, computed once (per call depth and anchor) and shared by every evaluation. */
interface Memo {
  value: Val;
  notes: NotFollowed[];
  chain: string[];
  modules: string[];
  /** The analysed document's names its evaluation read (ReadSet.names). */
  names: Map<string, string>;
  /** Its evaluation's work, nested module-level values included in full (Evaluator.total). */
  total: number;
  tooComplex?: string;
}

/**
 * What one config function's evaluation read (issue #36), so that a later analysis can tell whether its answer
 * can change: the analysed document's module-level names it looked up, each with the signature of what the
 * lookup resolved to (`rootNameSignature`: the text and position of the function, the assignment and the import
 * of that name), and the workspace modules it used, each with the text it read (`undefined`: absent). The rest
 * of what an evaluation depends on is the same for every function of a document (the module's imports and
 * classes, the workspace roots and the document's path) and is checked once per analysis by the caller.
 * `cost` bounds the steps a fresh evaluation of the function charges to the analysis's budget, whatever ran
 * before it (its own steps plus the full cost of every module-level value it read).
 */
export interface ReadSet {
  names: Map<string, string>;
  modules: Map<string, string | undefined>;
  cost: number;
}

/** The text of `range` in a parsed module. */
function textOf(m: PyModule, range: Range): string {
  return m.lines.text.slice(m.lines.offsetAt(range.start), m.lines.offsetAt(range.end));
}

function posKey(r: Range): string {
  return `${r.start.line}:${r.start.character}`;
}

/**
 * What a lookup of `name` at module level (`Evaluator.moduleName`) resolves to, as text: the first function of
 * that name, the module-level assignment, the first import binding it, each with its position (the values it
 * gives carry ranges). Equal signatures give equal lookups.
 */
export function rootNameSignature(m: PyModule, name: string): string {
  const fn = functionsOf(m).get(name);
  const assign = m.assigns.get(name);
  let imported = "";
  outer: for (const imp of m.imports) {
    for (const n of imp.names) {
      if (n.asName !== name || !n.name) continue;
      imported = `${imp.module}\u0000${n.name}`;
      break outer;
    }
  }
  return `${fn ? `${posKey(fn.range)}\u0000${textOf(m, fn.range)}` : ""}\u0001${assign ? `${posKey(assign.range)}\u0000${textOf(m, assign.range)}` : ""}\u0001${imported}`;
}

/** A config function as a cache key: its name, its position and its text (its every range follows from them). */
export function functionSignature(m: PyModule, fn: PyFunction): string {
  // Per function object: the parser reuses a function's object only for the same text at the same place.
  let sig = SIGNATURES.get(fn);
  if (sig === undefined) SIGNATURES.set(fn, (sig = `${fn.name}\u0000${posKey(fn.range)}\u0000${textOf(m, fn.range)}`));
  return sig;
}

const SIGNATURES = new WeakMap<PyFunction, string>();

/**
 * What every evaluation of a module reads besides its names: its imports and classes (Trainer.Config's names,
 * the model package), without their positions (no value carries them).
 */
export function moduleHeaderSignature(m: PyModule): string {
  const cls = (c: PyModule["classes"][number]): unknown => [c.name, c.bases, c.fields, c.selfAssigns, c.nested.map(cls)];
  return JSON.stringify([m.imports.map((i) => [i.module, i.names]), m.classes.map(cls)]);
}

/**
 * What the evaluations of one analysis share (issue #33, #36): the workspace modules (read once, parsed once
 * per content version through parse/pyModuleCache.ts) and the values of module-level names (each evaluated
 * once, with a budget of its own, so the value is the same whichever function asks first). A value is never
 * changed by the evaluation that receives it: an evaluation writes only into objects it owns and copies a
 * shared one on its first write (copy on write), so one function's `config.training.dtype = …` never shows in
 * another's.
 */
export class ModuleSet {
  private readonly loaded = new Map<string, LoadedModule | null>();
  readonly memo = new Map<LoadedModule, Map<string, Memo>>();
  /** The text each module path read (undefined: absent), for the evaluations' read sets. */
  readonly texts = new Map<string, string | undefined>();
  /** `rootNameSignature` of the analysed document's names, computed once per analysis. */
  private readonly signatures = new Map<string, string>();
  memoSize = 0;
  /** All evaluation work of this analysis (MAX_ANALYSIS_STEPS). */
  steps = 0;
  /** Tests and the bench: how many module-level values were computed (each once). */
  computed = 0;

  constructor(readonly env: AnalysisEnv) {}

  /** The module at `path`, read and parsed once per analysis; null when absent, too large or refused. */
  module(path: string): LoadedModule | null {
    const cached = this.loaded.get(path);
    if (cached !== undefined) return cached;
    const text = this.env.readFile(path);
    this.texts.set(path, text);
    const parsed = text === undefined ? undefined : parsedModule(path, text);
    const loaded: LoadedModule | null = parsed ? { module: parsed, file: path, path, isRoot: false } : null;
    this.loaded.set(path, loaded);
    return loaded;
  }

  /** The signature of a name of the analysed document (one document per set). */
  signature(m: PyModule, name: string): string {
    let s = this.signatures.get(name);
    if (s === undefined) {
      s = rootNameSignature(m, name);
      // The string of an earlier analysis when equal (one comparison per name per analysis): the cached
      // functions' read sets hold those, so their checks (functionCache.ts stillValid) compare identical strings.
      const before = INTERNED_SIGNATURES.get(name);
      if (before === s) s = before;
      else {
        if (INTERNED_SIGNATURES.size >= MAX_INTERNED_SIGNATURES) INTERNED_SIGNATURES.clear();
        INTERNED_SIGNATURES.set(name, s);
      }
      this.signatures.set(name, s);
    }
    return s;
  }
}

/** The last signature computed for each name (any document): equal strings are handed out as one object. */
const INTERNED_SIGNATURES = new Map<string, string>();
const MAX_INTERNED_SIGNATURES = 20_000;

/** `at` keeping the literal `from` was written as. */
function withLiteral(at: Origin, from: Origin): Origin {
  return from.literal ? { ...at, literal: from.literal } : at;
}

const FUNCTIONS = new WeakMap<PyModule, Map<string, PyFunction>>();

/** The module's functions by name (the first definition of a name, as the evaluator always read it). */
function functionsOf(m: PyModule): Map<string, PyFunction> {
  let map = FUNCTIONS.get(m);
  if (!map) {
    map = new Map();
    for (const f of m.functions) if (!map.has(f.name)) map.set(f.name, f);
    FUNCTIONS.set(m, map);
  }
  return map;
}

function rangeKey(r: Range): string {
  return `${r.start.line}:${r.start.character}:${r.end.line}:${r.end.character}`;
}

class Evaluator {
  steps = 0;
  /** This evaluation's steps plus the full cost of each module-level value it read (ReadSet.cost). */
  total = 0;
  /** The analysed document's names read, with their signatures (ReadSet.names). */
  readonly names = new Map<string, string>();
  readonly notFollowed: NotFollowed[] = [];
  readonly chain: string[] = [];
  /** Candidate module paths this evaluation used (MAX_MODULES), cached or not. */
  readonly touched = new Set<string>();
  tooComplex?: string;
  /** Shared objects this evaluation copied on write: reading one again gives the copy. */
  private readonly copies = new Map<Val, Val>();

  constructor(
    private readonly set: ModuleSet,
    readonly root: LoadedModule,
  ) {}

  /** One unit of work; throws OutOfBudget past this evaluation's or the analysis's budget. */
  charge(n = 1): void {
    this.steps += n;
    this.total += n;
    this.set.steps += n;
    if (this.steps > MAX_EVAL_STEPS || this.set.steps > MAX_ANALYSIS_STEPS) {
      this.tooComplex = TOO_COMPLEX;
      throw new OutOfBudget();
    }
  }

  origin(s: Scope, range: Range): Origin {
    return { file: s.mod.file, range, anchor: s.anchor ?? range, ...(s.via ? { via: s.via } : {}) };
  }

  note(s: Scope, what: string, text: string, range: Range): void {
    if (this.notFollowed.length >= 50) return;
    this.notFollowed.push({ what, text, file: s.mod.file, range, anchor: s.anchor ?? range, ...(s.via ? { via: s.via } : {}) });
  }

  /** A config object owned (writable in place) by this evaluation. */
  private obj(cls: string, at: Origin, partial?: string): Extract<Val, { t: "obj" }> {
    this.charge();
    return { t: "obj", cls, fields: new Map(), at, ...(partial ? { partial } : {}), owner: this };
  }

  /** This evaluation's view of a value: its own copy of a shared object it has written to. */
  view(v: Val): Val {
    return v.t === "obj" && v.owner !== this ? (this.copies.get(v) ?? v) : v;
  }

  /** A shared object made this evaluation's own (one level: its fields still point at shared values). */
  private own(v: Val): Val {
    if (v.t !== "obj" || v.owner === this) return v;
    const done = this.copies.get(v);
    if (done) return done;
    this.charge(1 + v.fields.size);
    const copy: Val = { ...v, fields: new Map(v.fields), owner: this };
    this.copies.set(v, copy);
    return copy;
  }

  /** `copy.deepcopy`: shared parts stay shared in the copy (as Python's memo does), each node copied once. */
  private deepCopy(v: Val, seen = new Map<Val, Val>()): Val {
    const src = this.view(v);
    if (src.t !== "obj" && src.t !== "list") return src;
    const done = seen.get(src);
    if (done) return done;
    this.charge();
    if (src.t === "list") {
      const out: Val = { ...src, items: [] };
      seen.set(src, out);
      for (const i of src.items) out.items.push(this.deepCopy(i, seen));
      return out;
    }
    const out: Val = { ...src, fields: new Map(), owner: this };
    seen.set(src, out);
    for (const [k, x] of src.fields) out.fields.set(k, this.deepCopy(x, seen));
    return out;
  }

  runFunction(fn: PyFunction, mod: LoadedModule, args: Val[], kwargs: Map<string, Val>, depth: number, anchor: Range | undefined, callRange?: Range): Val {
    const scope: Scope = { locals: new Map(), mod, depth, ...(anchor ? { anchor } : {}), ...(mod.isRoot && depth === 0 ? {} : { via: fn.name }) };
    const at = this.origin(scope, callRange ?? fn.nameRange);
    fn.params.forEach((p, i) => {
      const v = args[i] ?? kwargs.get(p);
      scope.locals.set(p, v ?? { t: "unknown", why: `the parameter \`${p}\` of ${fn.name}() has no value the analysis can see`, at });
    });
    for (const st of fn.body) {
      this.charge();
      const r = this.statement(st, scope);
      if (r) return r;
    }
    return { t: "scalar", v: null, at };
  }

  /** Returns the function's result on `return`, undefined otherwise. */
  private statement(st: PyStmt, s: Scope): Val | undefined {
    if (st.kind === "return") return st.value ? this.expr(st.value, s) : { t: "scalar", v: null, at: this.origin(s, st.range) };
    if (st.kind === "other") {
      this.note(s, st.what, st.text, st.range);
      return undefined;
    }
    const value = this.expr(st.value, s);
    for (const target of st.targets) this.assign(target, value, s, st.range);
    return undefined;
  }

  private assign(target: PyExpr, value: Val, s: Scope, range: Range): void {
    if (target.kind === "name") {
      s.locals.set(target.name, value);
      return;
    }
    if (target.kind === "attr") {
      const obj = this.writable(target.object, s);
      if (obj.t === "obj" && obj.owner === this) {
        // The value's origin is this assignment (a literal's own range is inside it).
        obj.fields.set(target.name, value.t === "scalar" || value.t === "list" ? { ...value, at: withLiteral(this.origin(s, value.at.file === s.mod.file ? value.at.range : range), value.at) } : value);
        return;
      }
      this.note(s, "assignment", `${exprText(target)} = …`, range);
      return;
    }
    this.note(s, "assignment", `${exprText(target)} = …`, range);
  }

  /** The object an attribute assignment writes into, made this evaluation's own along the way (copy on write). */
  private writable(e: PyExpr, s: Scope): Val {
    if (e.kind === "name") {
      this.charge();
      const v = this.lookup(e.name, s, this.origin(s, e.range));
      if (v.t !== "obj" || v.owner === this) return v;
      const copy = this.own(v);
      // A module-level name is not rebound: a write through it lasts for this expression only, as before.
      if (s.locals.has(e.name)) s.locals.set(e.name, copy);
      return copy;
    }
    if (e.kind === "attr") {
      this.charge();
      const parent = this.writable(e.object, s);
      const v = this.attrOf(parent, e, this.origin(s, e.range), true);
      if (v.t === "obj" && v.owner !== this && parent.t === "obj" && parent.owner === this) {
        const copy = this.own(v);
        parent.fields.set(e.name, copy);
        return copy;
      }
      return v;
    }
    return this.expr(e, s);
  }

  expr(e: PyExpr, s: Scope): Val {
    this.charge();
    const at = this.origin(s, e.range);
    switch (e.kind) {
      case "str":
        return { t: "scalar", v: e.value, at: { ...at, literal: { file: s.mod.file, range: e.range } } };
      case "num":
      case "bool":
        return { t: "scalar", v: e.value, at };
      case "none":
        return { t: "scalar", v: null, at };
      case "list": {
        const items: Val[] = [];
        for (const i of e.items) items.push(this.expr(i, s));
        return { t: "list", items, at };
      }
      case "name":
        return this.lookup(e.name, s, at);
      case "unary": {
        const v = this.expr(e.operand, s);
        if (v.t === "scalar" && typeof v.v === "number" && e.op === "-") return { t: "scalar", v: -v.v, at };
        if (v.t === "scalar" && e.op === "not") return { t: "scalar", v: !v.v, at };
        return { t: "unknown", why: `\`${exprText(e)}\` is not evaluated`, at };
      }
      case "binop":
        return this.binop(e, s, at);
      case "attr":
        return this.attrOf(this.expr(e.object, s), e, at, false);
      case "call":
        return this.call(e, s, at);
      case "other":
        return { t: "unknown", why: `\`${e.text}\` is not evaluated`, at };
    }
  }

  /** `obj.name` read (or, `forWrite`, about to be written through). Writes into `obj` only when this evaluation owns it. */
  private attrOf(objIn: Val, e: Extract<PyExpr, { kind: "attr" }>, at: Origin, forWrite: boolean): Val {
    const obj = this.view(objIn);
    if (obj.t === "obj") {
      const f = obj.fields.get(e.name);
      if (f) return this.view(f);
      const mine = obj.owner === this;
      const sectionClass = sectionClassOf(e.name);
      if ((obj.cls === "Trainer.Config" || obj.cls === "?") && sectionClass) {
        // A section never set is its default instance; create it so writes to it are kept.
        const sec = this.obj(sectionClass, at, obj.partial);
        if (mine) obj.fields.set(e.name, sec);
        return sec;
      }
      const section = SECTION_CLASSES[obj.cls];
      if (section && !obj.partial) {
        const spec = PY_FIELDS.find((f) => f.section === section && f.key === e.name);
        if (spec) {
          this.charge();
          return { t: spec.type === "list" ? "list" : "scalar", ...(spec.type === "list" ? { items: (spec.default as string[]).map((v) => ({ t: "scalar" as const, v, at })) } : { v: spec.default as string | number | boolean | null }), at } as Val;
        }
      }
      if (forWrite && obj.partial) {
        const sec = this.obj("?", at, obj.partial);
        if (mine) obj.fields.set(e.name, sec);
        return sec;
      }
      return { t: "unknown", why: obj.partial ?? `\`${exprText(e)}\` is not a field the analysis knows`, at };
    }
    if (obj.t === "unknown") return obj;
    return { t: "unknown", why: `\`${exprText(e)}\` is not evaluated`, at };
  }

  private binop(e: Extract<PyExpr, { kind: "binop" }>, s: Scope, at: Origin): Val {
    const l = this.expr(e.left, s);
    const r = this.expr(e.right, s);
    if (l.t === "scalar" && r.t === "scalar") {
      const a = l.v;
      const b = r.v;
      if (typeof a === "number" && typeof b === "number") {
        const v = e.op === "+" ? a + b : e.op === "-" ? a - b : e.op === "*" ? a * b : e.op === "//" && b !== 0 ? Math.floor(a / b) : e.op === "/" && b !== 0 ? a / b : e.op === "**" && Math.abs(b) < 64 ? a ** b : undefined;
        if (v !== undefined && Number.isFinite(v)) return { t: "scalar", v, at };
      }
      if (typeof a === "string" && typeof b === "string" && e.op === "+" && a.length + b.length < 4096) {
        // A built string costs by its length (one unit per 64 characters).
        this.charge((a.length + b.length) >> 6);
        return { t: "scalar", v: a + b, at };
      }
    }
    return { t: "unknown", why: `\`${exprText(e)}\` is not evaluated`, at };
  }

  private lookup(name: string, s: Scope, at: Origin): Val {
    const local = s.locals.get(name);
    if (local) return this.view(local);
    return this.view(this.moduleName(name, s.mod, s.depth, at, s));
  }

  /** A name at module level: a function, a constant, or an import (followed into the workspace). */
  private moduleName(name: string, mod: LoadedModule, depth: number, at: Origin, s?: Scope): Val {
    if (mod.isRoot && !this.names.has(name)) this.names.set(name, this.set.signature(mod.module, name));
    const fn = functionsOf(mod.module).get(name);
    if (fn) return { t: "fn", fn, mod };
    const assign = mod.module.assigns.get(name);
    if (assign && depth < MAX_CALL_DEPTH) return this.memoValue(mod, name, assign.value, depth + 1, s?.anchor ?? (mod.isRoot ? undefined : at.anchor));
    for (const imp of mod.module.imports) {
      for (const n of imp.names) {
        if (n.asName !== name || !n.name) continue;
        const target = this.loadModule(imp.module, mod);
        if (!target) return { t: "unknown", why: `\`${name}\` comes from \`${imp.module}\`, which is not in the workspace`, at };
        if (depth >= MAX_CALL_DEPTH) return { t: "unknown", why: `\`${name}\` is more than ${MAX_CALL_DEPTH} modules away`, at };
        return this.moduleName(n.name, target, depth + 1, at, s);
      }
    }
    return { t: "unknown", why: `\`${name}\` is not defined in this module or an import the analysis can follow`, at };
  }

  /**
   * A module-level name's value: evaluated once per (module version, call depth, anchor) with a budget of its
   * own, then shared. What its evaluation noted (statements not followed, functions followed, modules used)
   * is replayed into every evaluation that reads it, as if it had been evaluated there.
   */
  private memoValue(mod: LoadedModule, name: string, value: PyExpr, depth: number, anchor: Range | undefined): Val {
    const key = `${name}\u0000${depth}\u0000${anchor ? rangeKey(anchor) : ""}`;
    let perModule = this.set.memo.get(mod);
    let m = perModule?.get(key);
    if (!m) {
      const child = new Evaluator(this.set, this.root);
      const scope: Scope = { locals: new Map(), mod, depth, ...(anchor ? { anchor } : {}) };
      let v: Val;
      try {
        v = child.expr(value, scope);
      } catch (e) {
        if (!(e instanceof OutOfBudget)) throw e;
        v = { t: "unknown", why: TOO_COMPLEX, at: child.origin(scope, value.range) };
      }
      m = { value: v, notes: child.notFollowed, chain: child.chain, modules: [...child.touched], names: child.names, total: child.total, ...(child.tooComplex ? { tooComplex: child.tooComplex } : {}) };
      this.set.computed++;
      if (this.set.memoSize < MAX_MODULE_MEMO) {
        if (!perModule) this.set.memo.set(mod, (perModule = new Map()));
        perModule.set(key, m);
        this.set.memoSize++;
      }
    }
    this.charge();
    for (const n of m.notes) if (this.notFollowed.length < 50) this.notFollowed.push(n);
    for (const c of m.chain) this.chain.push(c);
    for (const p of m.modules) this.touched.add(p);
    for (const [k, v] of m.names) if (!this.names.has(k)) this.names.set(k, v);
    this.total += m.total;
    if (m.tooComplex) this.tooComplex = m.tooComplex;
    return m.value;
  }

  private call(e: Extract<PyExpr, { kind: "call" }>, s: Scope, at: Origin): Val {
    const callee = exprText(e.callee);
    const cls = configClassOf(callee, s.mod.module);
    const kwargs = new Map<string, Val>();
    for (const k of e.kwargs) kwargs.set(k.name, this.expr(k.value, s));
    if (cls) {
      const obj = this.obj(cls, at);
      // A trainer subclass's Config that gives a section another default: that section is not followed.
      const renamed = cls === "Trainer.Config" ? trainerConfigNames(s.mod.module).get(callee) : undefined;
      const notFollowedSection = (sec: string, why: string): void => {
        const secClass = sectionClassOf(sec);
        obj.fields.set(sec, secClass ? this.obj(secClass, at, why) : { t: "unknown", why, at });
      };
      for (const sec of renamed?.redefines ?? []) notFollowedSection(sec, `\`${callee}\` (${renamed!.via}) gives \`${sec}\` its own default, which is not followed`);
      for (const k of e.kwargs) {
        const v = kwargs.get(k.name)!;
        obj.fields.set(k.name, v.t === "scalar" || v.t === "list" ? { ...v, at: withLiteral(this.origin(s, k.value.range), v.at) } : v);
      }
      if (e.hasStarArgs) obj.partial = `\`${callee}(...)\` takes \`*\`/\`**\` arguments the analysis does not expand`;
      // A method of the class (`__post_init__`) sets these after the arguments: what it sets is not followed.
      for (const sec of renamed?.overwrites ?? []) notFollowedSection(sec, `\`${callee}\` (${renamed!.via}) sets \`${sec}\` in a method (\`self.${sec} = …\`), which is not followed`);
      return obj;
    }
    if (callee in KNOWN_HELPERS) return this.obj("OptimizersContainer.Config", at);
    if (callee === "model_registry" || callee.endsWith(".model_registry")) {
      const obj = this.obj("ModelSpec", at);
      const conv = kwargs.get("converters");
      if (conv) obj.fields.set("converters", conv);
      const flavor = e.args[0] ? this.expr(e.args[0], s) : kwargs.get("flavor");
      if (flavor?.t === "scalar" && typeof flavor.v === "string") obj.fields.set("flavor", flavor);
      const name = modelNameOf(callee, s.mod);
      if (name) obj.fields.set("name", { t: "scalar", v: name, at });
      return obj;
    }
    if ((callee === "copy.deepcopy" || callee === "deepcopy") && e.args[0]) return this.deepCopy(this.expr(e.args[0], s));
    if ((callee === "to_graph_trainer_config" || callee.endsWith(".to_graph_trainer_config")) && e.args[0]) return this.graphTrainerConfig(this.expr(e.args[0], s), callee, at);
    const f = e.callee.kind === "name" ? this.lookup(e.callee.name, s, at) : undefined;
    if (f?.t === "fn") {
      if (s.depth >= MAX_CALL_DEPTH) return { t: "unknown", why: `\`${callee}()\` is more than ${MAX_CALL_DEPTH} calls deep`, at };
      const args: Val[] = [];
      for (const a of e.args) args.push(this.expr(a, s));
      const mark = this.chain.length;
      // The chain's anchor in the analysed document is the outermost call site.
      const r = this.runFunction(f.fn, f.mod, args, kwargs, s.depth + 1, s.anchor ?? (s.mod.isRoot ? e.range : undefined), e.range);
      // The chain names the config functions followed (a helper computing a number is not one).
      if (r.t === "obj" && r.cls === "Trainer.Config") this.chain.splice(mark, 0, f.mod.isRoot ? `${f.fn.name}()` : `${f.fn.name}() in ${f.mod.file}`);
      return r;
    }
    const why = f?.t === "unknown" ? f.why : `\`${callee}()\` is not a function the analysis follows`;
    // An unknown call may return a config: keep writes to it (partial) and say why its other fields are unknown.
    return this.obj("?", at, `\`${callee}()\` was not followed (${why})`);
  }

  /**
   * graph_trainer's `to_graph_trainer_config(base, model_registry)` (torchtitan 0.3.0
   * experiments/graph_trainer/configs.py:230-290), modelled as its code runs: every field of the base config is
   * carried over as is (parallelism, training, model_spec's flavor and converters), `compile` is dropped to the
   * GraphTrainer default (configs.py:266), and any activation-checkpoint config becomes the default selective one
   * (configs.py:271-273; Trainer.Config's default is never None). The base is read, never written.
   */
  private graphTrainerConfig(base: Val, callee: string, at: Origin): Val {
    const src = this.view(base);
    if (src.t !== "obj" || src.cls !== "Trainer.Config") {
      return this.obj("?", at, `\`${callee}()\` was given ${src.t === "unknown" ? `a config the analysis cannot see (${src.why})` : "no Trainer.Config the analysis can read"}`);
    }
    const out = this.obj("Trainer.Config", at, src.partial);
    for (const [k, v] of src.fields) if (k !== "compile") out.fields.set(k, v);
    out.fields.set("activation_checkpoint", this.obj("SelectiveAC.Config", at));
    return out;
  }

  /** A workspace module: shared by the analysis; this evaluation may use at most MAX_MODULES candidate paths. */
  loadModule(spec: string, from: LoadedModule): LoadedModule | undefined {
    for (const path of this.candidates(spec, from)) {
      if (!this.touched.has(path)) {
        if (this.touched.size >= MAX_MODULES) return undefined;
        this.touched.add(path);
      }
      const m = this.set.module(path);
      if (m) return m;
    }
    return undefined;
  }

  private candidates(spec: string, from: LoadedModule): string[] {
    const dots = /^\.*/.exec(spec)![0].length;
    const parts = spec.slice(dots).split(".").filter(Boolean);
    const files = (base: string): string[] => {
      const dir = parts.reduce((d, p) => join(d, p), base);
      return parts.length ? [`${dir}.py`, join(dir, "__init__.py")] : [join(base, "__init__.py")];
    };
    if (dots) {
      if (!from.path) return [];
      let base = dirname(from.path);
      for (let i = 1; i < dots; i++) base = dirname(base);
      return files(base);
    }
    const env = this.set.env;
    const roots = new Set<string>();
    for (const r of env.workspaceRoots ?? []) roots.add(r);
    // Ancestors of the document: a checkout of torchtitan (or a fork's package) above the registry.
    let d = env.documentPath ? dirname(env.documentPath) : undefined;
    for (let i = 0; d && i < 8; i++) {
      roots.add(d);
      const up = dirname(d);
      if (up === d) break;
      d = up;
    }
    return [...roots].flatMap(files);
  }
}

/** The model package `model_registry` comes from: `from . import model_registry` in models/<name>/, or `torchtitan.models.<name>`. */
function modelNameOf(callee: string, mod: LoadedModule): string | undefined {
  const head = callee.includes(".") ? callee.slice(0, callee.lastIndexOf(".")) : undefined;
  for (const imp of mod.module.imports) {
    for (const n of imp.names) {
      if (head ? n.asName !== head : n.asName !== "model_registry") continue;
      // `from torchtitan.models import llama3` + `llama3.model_registry(...)`: the imported name is the package.
      const spec = head ? (n.name ? `${imp.module}.${n.name}` : imp.module) : imp.module;
      const parts = spec.replace(/^\.+/, "").split(".").filter(Boolean);
      if (parts.length) return /^[A-Za-z0-9_]+$/.test(parts.at(-1)!) ? parts.at(-1) : undefined;
      // `from . import model_registry`: the package is the module's own folder.
      const file = (mod.path ?? mod.file).replace(/\\/g, "/").split(/[?#]/)[0]!;
      const dirs = file.split("/");
      const folder = dirs.at(-2);
      return folder && /^[A-Za-z0-9_]+$/.test(folder) ? folder : undefined;
    }
  }
  return undefined;
}

/** Trainer.Config's fields a subclass's Config may give another default that the analysis reads. */
const TRAINER_SECTIONS: ReadonlySet<string> = new Set([...Object.values(SECTION_CLASSES), "activation_checkpoint", "model_spec", "model_converters"]);

export interface TrainerConfigName {
  /** How the name reaches Trainer.Config ("Trainer imported as T", "MyTrainer(Trainer)"). */
  via: string;
  /** Sections its class body gives another default (`training: TrainingConfig = field(...)`). */
  redefines: string[];
  /** Sections its methods set (`self.optimizer = …` in `__post_init__`): they win over the call's arguments. */
  overwrites: string[];
}

const TRAINER_NAMES = new WeakMap<PyModule, Map<string, TrainerConfigName>>();

/**
 * The names a module uses for torchtitan's Trainer.Config (trainer.py@b5bcd76c6:70): `Trainer.Config`; an
 * alias's (`from torchtitan.trainer import Trainer as T` → `T.Config`); a subclass's (`class MyTrainer(Trainer)`
 * → `MyTrainer.Config`, with or without its own nested `class Config(Trainer.Config)`); a renamed config class
 * (`class LoRAFTConfig(Trainer.Config)`). Subclasses of subclasses are followed within the module.
 */
export function trainerConfigNames(m: PyModule): Map<string, TrainerConfigName> {
  const cached = TRAINER_NAMES.get(m);
  if (cached) return cached;
  const none = { redefines: [], overwrites: [] };
  const trainers = new Map<string, TrainerConfigName>([["Trainer", { via: "torchtitan.trainer.Trainer", ...none }]]);
  const configs = new Map<string, TrainerConfigName>([["Trainer.Config", { via: "torchtitan.trainer.Trainer.Config", ...none }]]);
  for (const imp of m.imports) {
    if (imp.module !== "torchtitan" && !imp.module.startsWith("torchtitan.")) continue;
    for (const n of imp.names) {
      if (n.name === "Trainer" && n.asName !== "Trainer") {
        trainers.set(n.asName, { via: `Trainer imported as ${n.asName}`, ...none });
        configs.set(`${n.asName}.Config`, { via: `Trainer imported as ${n.asName}`, ...none });
      }
      // import torchtitan.trainer as tt → tt.Trainer.Config
      if (!n.name && imp.module === "torchtitan.trainer" && n.asName !== "torchtitan") configs.set(`${n.asName}.Trainer.Config`, { via: `torchtitan.trainer imported as ${n.asName}`, ...none });
    }
  }
  const sections = (fields: readonly string[]): string[] => fields.filter((f) => TRAINER_SECTIONS.has(f));
  for (let pass = 0, changed = true; changed && pass < 4; pass++) {
    changed = false;
    for (const cls of m.classes) {
      const trainerBase = cls.bases.find((b) => trainers.has(b));
      if (trainerBase && !trainers.has(cls.name)) {
        const base = trainers.get(trainerBase)!;
        const own = cls.nested.find((k) => k.name === "Config");
        const inherited = configs.get(`${trainerBase}.Config`) ?? base;
        const info = { via: `${cls.name}(${trainerBase})`, redefines: [...new Set([...inherited.redefines, ...sections(own?.fields ?? [])])], overwrites: [...new Set([...inherited.overwrites, ...sections(own?.selfAssigns ?? [])])] };
        trainers.set(cls.name, info);
        configs.set(`${cls.name}.Config`, info);
        changed = true;
      }
      const configBase = cls.bases.find((b) => configs.has(b));
      if (configBase && !configs.has(cls.name)) {
        const inherited = configs.get(configBase)!;
        configs.set(cls.name, { via: `${cls.name}(${configBase})`, redefines: [...new Set([...inherited.redefines, ...sections(cls.fields)])], overwrites: [...new Set([...inherited.overwrites, ...sections(cls.selfAssigns)])] });
        changed = true;
      }
    }
  }
  TRAINER_NAMES.set(m, configs);
  return configs;
}

/** `Trainer.Config`, `TrainingConfig`, `SelectiveAC.Config`, ... (a trailing module path is ignored). */
function configClassOf(callee: string, module?: PyModule): string | undefined {
  if (module && trainerConfigNames(module).has(callee)) return "Trainer.Config";
  const known = ["Trainer.Config", ...Object.keys(SECTION_CLASSES), ...Object.keys(AC_CLASSES), ...Object.keys(CONVERTER_CLASSES), ...CONVERTER_CONTAINERS];
  const k = known.find((c) => callee === c || callee.endsWith(`.${c}`));
  if (k) return k;
  // An imported trainer subclass's Config (SimulationTrainer.Config, GraphTrainer.Config) keeps Trainer.Config's fields.
  return /(^|\.)[A-Za-z0-9_]*Trainer\.Config$/.test(callee) ? "Trainer.Config" : undefined;
}

function sectionClassOf(field: string): string | undefined {
  return Object.entries(SECTION_CLASSES).find(([, sec]) => sec === field)?.[0];
}

export function exprText(e: PyExpr): string {
  switch (e.kind) {
    case "name":
      return e.name;
    case "attr":
      return `${exprText(e.object)}.${e.name}`;
    case "call":
      return `${exprText(e.callee)}(…)`;
    case "num":
      return e.raw;
    case "str":
      return JSON.stringify(e.value);
    case "bool":
      return e.value ? "True" : "False";
    case "none":
      return "None";
    case "list":
      return "[…]";
    case "unary":
      return `${e.op}${exprText(e.operand)}`;
    case "binop":
      return `${exprText(e.left)} ${e.op} ${exprText(e.right)}`;
    case "other":
      return e.text;
  }
}

/** The functions of a module that are torchtitan config functions: `-> Trainer.Config`, or returning `Trainer.Config(...)`. */
export function configFunctions(module: PyModule): PyFunction[] {
  // Once per module object (detection and the analysis both ask).
  let fns = CONFIG_FUNCTIONS.get(module);
  if (!fns) CONFIG_FUNCTIONS.set(module, (fns = findConfigFunctions(module)));
  return fns;
}

const CONFIG_FUNCTIONS = new WeakMap<PyModule, PyFunction[]>();

function findConfigFunctions(module: PyModule): PyFunction[] {
  const names = trainerConfigNames(module);
  const trainerConfig = (s: string | undefined): boolean => {
    if (!s) return false;
    const t = s.replace(/^["']|["']$/g, "");
    return names.has(t) || /^[A-Za-z0-9_]*Trainer\.Config$/.test(t);
  };
  return module.functions.filter((f) => trainerConfig(f.returns) || f.body.some((s) => s.kind === "return" && s.value?.kind === "call" && configClassOf(exprText(s.value.callee), module) === "Trainer.Config"));
}

/**
 * One config function evaluated. `set` is what the analysis's evaluations share (the workspace modules and the
 * module-level values); the function's own work has its own budget, so its answer depends on its inputs only.
 */
export function evaluateConfig(fn: PyFunction, root: LoadedModule, env: AnalysisEnv, set: ModuleSet = new ModuleSet(env), reads?: ReadSet): EvaluatedConfig {
  const ev = new Evaluator(set, root);
  let result: Val;
  try {
    result = ev.runFunction(fn, root, [], new Map(), 0, undefined);
  } catch (e) {
    if (!(e instanceof OutOfBudget)) throw e;
    result = { t: "unknown", why: TOO_COMPLEX, at: { file: root.file, range: fn.nameRange, anchor: fn.nameRange } };
  }
  if (reads) {
    for (const [k, v] of ev.names) reads.names.set(k, v);
    for (const p of ev.touched) reads.modules.set(p, set.texts.get(p));
    reads.cost += ev.total;
  }
  result = ev.view(result);
  const out: EvaluatedConfig = { fn, fields: new Map(), notFollowed: ev.notFollowed, chain: ev.chain, activationCheckpoint: { mode: AC_DEFAULT.mode, source: AC_DEFAULT.source }, converters: [] };
  if (ev.tooComplex) out.tooComplex = ev.tooComplex;
  const trainer = result.t === "obj" ? result : undefined;
  const field = (o: Val | undefined, k: string): Val | undefined => {
    const f = o?.t === "obj" ? o.fields.get(k) : undefined;
    return f ? ev.view(f) : undefined;
  };
  if (!trainer || (trainer.cls !== "Trainer.Config" && trainer.cls !== "?")) out.unreadable = result.t === "unknown" ? result.why : `${fn.name}() does not return a Trainer.Config the analysis can read`;
  const basePartial = trainer?.partial ?? out.unreadable;
  if (basePartial) out.partial = basePartial;
  for (const spec of PY_FIELDS) {
    const key = `${spec.section}.${spec.key}`;
    const section = field(trainer, spec.section);
    const partial = section?.t === "obj" ? (section.partial ?? (section.cls === "?" ? basePartial : undefined)) : basePartial;
    if (section && section.t !== "obj") {
      out.fields.set(key, { spec, state: "unknown", why: section.t === "unknown" ? section.why : `\`${spec.section}\` is not a config object` });
      continue;
    }
    const v = field(section, spec.key);
    if (v?.t === "scalar") out.fields.set(key, { spec, state: "set", value: v.v, origin: v.at });
    else if (v?.t === "list" && v.items.every((i) => i.t === "scalar")) out.fields.set(key, { spec, state: "set", value: v.items.map((i) => String((i as { v: unknown }).v)), origin: v.at });
    else if (v) out.fields.set(key, { spec, state: "unknown", why: v.t === "unknown" ? v.why : `\`${key}\` is not a literal` });
    else if (partial) out.fields.set(key, { spec, state: "unknown", why: partial });
    else out.fields.set(key, { spec, state: "default", value: spec.default as FieldValue["value"] });
  }
  const ac = field(trainer, "activation_checkpoint");
  const acMode = ac?.t === "obj" && ac.cls === "ActivationCheckpointConfig" ? field(ac, "mode") : undefined;
  if (ac?.t === "obj" && ac.cls === "ActivationCheckpointConfig") out.activationCheckpoint = acMode?.t === "scalar" ? { mode: String(acMode.v), origin: ac.at } : acMode ? { mode: "unknown", unknown: "the mode is not a literal" } : { mode: "selective", origin: ac.at };
  else if (ac?.t === "obj" && AC_CLASSES[ac.cls]) out.activationCheckpoint = { mode: AC_CLASSES[ac.cls]!, origin: ac.at };
  else if (ac) out.activationCheckpoint = { mode: "unknown", unknown: ac.t === "unknown" ? ac.why : "not a known activation-checkpoint config" };
  else if (basePartial) out.activationCheckpoint = { mode: "unknown", unknown: basePartial };
  const spec = field(trainer, "model_spec");
  const container = field(trainer, "model_converters");
  const conv = container?.t === "obj" ? field(container, "converters") : spec?.t === "obj" ? field(spec, "converters") : undefined;
  if (conv?.t === "list") {
    const list: { name: string; kind: string; origin: Origin }[] = [];
    for (const item of conv.items) {
      const c = ev.view(item);
      if (c.t === "obj" && CONVERTER_CLASSES[c.cls]) list.push({ name: c.cls, kind: CONVERTER_CLASSES[c.cls]!, origin: c.at });
    }
    out.converters = list.length === conv.items.length ? list : { unknown: "a converter the analysis does not know" };
  } else if (spec && spec.t !== "obj") out.converters = { unknown: spec.t === "unknown" ? spec.why : "model_spec is not read" };
  else if (!spec && basePartial) out.converters = { unknown: basePartial };
  if (spec?.t === "obj" && spec.cls === "ModelSpec") {
    const name = field(spec, "name");
    const flavor = field(spec, "flavor");
    out.model = {
      ...(name?.t === "scalar" && typeof name.v === "string" ? { name: name.v } : {}),
      ...(flavor?.t === "scalar" && typeof flavor.v === "string" ? { flavor: flavor.v } : {}),
    };
  }
  return out;
}
