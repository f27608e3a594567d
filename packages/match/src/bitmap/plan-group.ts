// The group proof of the slab stepper: many plans of dense terms proved empty on a slab together, by distributivity.
// c ∧ (t1 ∨ … ∨ tk) is empty exactly when every c ∧ tj is, so the OR of a stage's dense plans is computed factored:
// each plan's terms ordered by how many plans name them, the plans merged into a trie on that order, identical
// subtrees evaluated once (a node's children with the same subtree merged into one whose term is the OR of theirs),
// a union that holds an earlier one started from it; then run in the WebAssembly kernel over each term's part of the
// slab, serialized by roaring a block of containers at a time and read in place. 256 dense pairs cost about 235
// bitset passes a slab instead of 256 roaring ANDs; v1 topic-count plans (A ∧ bucket4, A ∧ bucket5) become
// A ∧ (bucket4 ∨ bucket5). The result is the exact OR of the plans, so an empty result proves every plan empty and a
// non-empty one proves nothing (the stepper then evaluates the plans one by one, as without a group).
import { assert } from '@strata/base';
import type roaring from 'roaring';
import {
  groupKernel,
  type Kernel,
  MAX_KERNEL_SLOTS,
  PROGRAM,
  PROGRAM_WORDS,
  STAGING,
  STAGING_BYTES,
} from './slab-bitsets.js';
import type { WindowTerm } from './window-term.js';

type RoaringBitmap32 = roaring.RoaringBitmap32;

/** A plan: the terms whose AND gives its candidates (the PlanTerms of slab-and.ts). */
type Plan = readonly WindowTerm[];

/** A stage needs at least this many groupable plans for a group: fewer are as cheap one by one. */
export const GROUP_MIN_PLANS = 4;
/** A term's part of the slabs is loaded this many containers at a time at most (doubling from 1 per walk). */
const MAX_BLOCK_SLABS = 8;
const CONTAINER_SPAN = 65_536;

/** True when a plan may join a group: two terms or more, every one dense (bitset or run containers). */
export function groupable(terms: Plan): boolean {
  if (terms.length < 2) return false;
  for (let i = 0; i < terms.length; i++) {
    const strategy = terms[i]!.strategy;
    if (strategy !== 'gallop' && strategy !== 'clip') return false;
  }
  return true;
}

/** Options of a group: the walk direction (which way a term's blocks extend) and the negative-control fault. */
export interface PlanGroupOptions {
  readonly descending: boolean;
  /** Fault (negative controls): the program leaves out the last member plan, which still counts as proved. */
  readonly dropLastPlan?: boolean;
}

// Program ops over bitset operands; an operand is a term (index ≥ 0) or a temporary bitset (-1 - index).
/** [OP_OR, dst, keep, k, operand × k]: dst = (keep ? dst : ∅) ∪ the operands. */
const OP_OR = 0;
/** [OP_OR_AND, a, b, dst, keep]: dst = (keep ? dst : ∅) ∪ (a ∩ b). */
const OP_OR_AND = 1;

/** One distinct subtree of the trie: the terms of its leaf children, and per distinct grandchild subtree the OR. */
interface Shape {
  readonly leafTerms: number[];
  readonly edges: { readonly terms: number[]; readonly sub: number }[];
}

interface TrieNode {
  readonly children: Map<number, TrieNode>;
  /** A plan ends here: the node's subtree is everything (absorption: a ∨ (a ∧ b) = a). */
  end: boolean;
}

/**
 * The compiled OR of a stage's dense plans. `members` are the plans it proves; `provesEmpty(lo, hi)` is true only
 * when every member is empty on [lo, hi] (one container). Concurrency: one group per walk, used from one thread,
 * synchronously; the kernel instance is the thread's and holds nothing from one call to the next but loaded blocks,
 * which `provesEmpty` re-checks against its own term list before it uses them.
 */
export class PlanGroup {
  readonly members: ReadonlySet<Plan>;
  private readonly terms: WindowTerm[];
  private readonly program: Int32Array;
  private readonly result: number;
  private readonly temps: number;
  private readonly windowLo: number;
  private readonly windowHi: number;
  private readonly descending: boolean;
  private readonly blockSlabs: number;
  /** Per term: the first container key of its loaded block, its length, and the next block's length. */
  private readonly blockKey: Int32Array;
  private readonly blockLength: Int32Array;
  private readonly nextLength: Int32Array;
  /** Per term and slab of its block: the container's kind (ABSENT, array, BITSET, run), address and cardinality. */
  private readonly blockKind: Int8Array;
  private readonly blockData: Int32Array;
  private readonly blockCard: Int32Array;
  /** Per term: the container key its conversion slot holds, or -1. */
  private readonly convertedKey: Int32Array;
  private readonly termAddress: Int32Array;
  private readonly areaViews: (Uint8Array | undefined)[] = [];
  private readonly kernel: Kernel;
  /** Which group's blocks the thread's kernel holds: a group that finds another's reloads its own. */
  private readonly token = {};

  /** The group of `plans` (those groupable, sharing the first one's window), or undefined when too few are. */
  static of(plans: readonly Plan[], options: PlanGroupOptions): PlanGroup | undefined {
    const members: Plan[] = [];
    let lo = -1;
    let hi = -1;
    for (const plan of plans) {
      if (!groupable(plan)) continue;
      if (members.length === 0) {
        lo = plan[0]!.lo;
        hi = plan[0]!.hi;
      }
      if (plan.every((term) => term.lo === lo && term.hi === hi)) members.push(plan);
    }
    if (members.length < GROUP_MIN_PLANS || lo > hi) return undefined;
    const group = new PlanGroup(members, lo, hi, options);
    return group.blockSlabs >= 1 && group.program.length <= PROGRAM_WORDS ? group : undefined;
  }

  private constructor(members: readonly Plan[], lo: number, hi: number, options: PlanGroupOptions) {
    this.members = new Set(members);
    this.windowLo = lo;
    this.windowHi = hi;
    this.descending = options.descending;
    const proved = options.dropLastPlan === true ? members.slice(0, -1) : members;
    const ids = new Map<WindowTerm, number>();
    const uses: number[] = [];
    for (const plan of proved) {
      for (const term of plan) {
        let id = ids.get(term);
        if (id === undefined) {
          id = ids.size;
          ids.set(term, id);
          uses[id] = 0;
        }
        uses[id]!++;
      }
    }
    this.terms = [...ids.keys()];
    const { program, result, temps } = compiled(proved, ids, uses);
    this.program = program;
    this.result = result;
    this.temps = temps;
    this.kernel = groupKernel();
    // Slots: the temporaries, the zero slot, then per term a conversion slot and a serialization area of
    // blockSlabs + 1 slots (room for the containers and roaring's header).
    const slotsLeft = MAX_KERNEL_SLOTS - temps - 1;
    this.blockSlabs = Math.min(MAX_BLOCK_SLABS, Math.floor(slotsLeft / Math.max(1, this.terms.length)) - 2);
    const n = this.terms.length;
    this.blockKey = new Int32Array(n).fill(-1);
    this.blockLength = new Int32Array(n);
    this.nextLength = new Int32Array(n).fill(1);
    this.blockKind = new Int8Array(n * Math.max(0, this.blockSlabs));
    this.blockData = new Int32Array(n * Math.max(0, this.blockSlabs));
    this.blockCard = new Int32Array(n * Math.max(0, this.blockSlabs));
    this.convertedKey = new Int32Array(n).fill(-1);
    this.termAddress = new Int32Array(n);
  }

  /**
   * True when the OR of the members' ANDs has nothing in [lo, hi] ∩ the group's window ([lo, hi] inside one
   * container): every member is then empty there. False proves nothing. `scratch` is a cleared bitmap the call may
   * use and leaves cleared.
   */
  provesEmpty(lo: number, hi: number, scratch: RoaringBitmap32): boolean {
    const key = Math.floor(lo / CONTAINER_SPAN);
    assert(key === Math.floor(hi / CONTAINER_SPAN), 'a group proof lies in one container');
    const from = Math.max(lo, this.windowLo);
    const to = Math.min(hi, this.windowHi);
    if (from > to) return true;
    const kernel = this.kernel;
    if (owner.get(kernel) !== this.token) {
      owner.set(kernel, this.token);
      this.blockKey.fill(-1);
      kernel.ensureSlots(this.termSlots(this.terms.length));
      kernel.exports.clear(kernel.slotAddress(this.temps));
    }
    for (let t = 0; t < this.terms.length; t++) this.termAddress[t] = this.addressOf(t, key, scratch);
    this.run();
    const base = key * CONTAINER_SPAN;
    return kernel.exports.anyInRange(this.operand(this.result), from - base, to - base) === 0;
  }

  private operand(ref: number): number {
    return ref >= 0 ? this.termAddress[ref]! : this.kernel.slotAddress(-1 - ref);
  }

  /** Writes the program with every operand resolved to its address into the kernel's program area, and runs it. */
  private run(): void {
    const program = this.program;
    const u32 = this.kernel.u32;
    const base = PROGRAM / 4;
    for (let at = 0; at < program.length; ) {
      const op = program[at]!;
      u32[base + at] = op;
      if (op === OP_OR_AND) {
        u32[base + at + 1] = this.operand(program[at + 1]!);
        u32[base + at + 2] = this.operand(program[at + 2]!);
        u32[base + at + 3] = this.operand(program[at + 3]!);
        u32[base + at + 4] = program[at + 4]!;
        at += 5;
        continue;
      }
      const k = program[at + 3]!;
      u32[base + at + 1] = this.operand(program[at + 1]!);
      u32[base + at + 2] = program[at + 2]!;
      u32[base + at + 3] = k;
      for (let i = 0; i < k; i++) u32[base + at + 4 + i] = this.operand(program[at + 4 + i]!);
      at += 4 + k;
    }
    this.kernel.exports.runProgram(PROGRAM, PROGRAM + 4 * program.length);
  }

  /**
   * The address of term t's bitset in container `key`, loading the block that holds it when needed: a bitset
   * container is read where roaring serialized it, an array or run container is converted into the term's conversion
   * slot, an absent one is the zero slot.
   */
  private addressOf(t: number, key: number, scratch: RoaringBitmap32): number {
    const first = this.blockKey[t]!;
    if (first === -1 || key < first || key >= first + this.blockLength[t]!) this.loadBlock(t, key, scratch);
    const at = t * this.blockSlabs + key - this.blockKey[t]!;
    const kind = this.blockKind[at]!;
    if (kind === BITSET || kind === CONVERTED) return this.blockData[at]!;
    if (kind === ABSENT) return this.kernel.slotAddress(this.temps);
    const converted = this.kernel.slotAddress(this.termSlots(t));
    if (this.convertedKey[t] !== key) {
      this.kernel.exports.loadContainer(this.blockData[at]!, this.blockCard[at]!, kind, converted);
      this.convertedKey[t] = key;
    }
    return converted;
  }

  /** The first slot of term t's slots: its conversion slot, then its serialization area. */
  private termSlots(t: number): number {
    return this.temps + 1 + t * (this.blockSlabs + 2);
  }

  /**
   * Serializes term t's part of the block of containers from `key` on (in the walk direction; its length doubles
   * from 1 up to blockSlabs per term, so a walk that stops early loads little) into its serialization area, and
   * records where each container lies.
   */
  private loadBlock(t: number, key: number, scratch: RoaringBitmap32): void {
    const term = this.terms[t]!;
    const firstKey = Math.floor(this.windowLo / CONTAINER_SPAN);
    const lastKey = Math.floor(this.windowHi / CONTAINER_SPAN);
    let length = Math.min(this.nextLength[t]!, this.blockSlabs);
    this.nextLength[t] = Math.min(2 * length, this.blockSlabs);
    const area = this.kernel.slotAddress(this.termSlots(t) + 1);
    const areaBytes = (this.blockSlabs + 1) * BITSET_BYTES;
    for (;;) {
      const start = this.descending ? Math.max(key - length + 1, firstKey) : key;
      const end = this.descending ? key : Math.min(key + length - 1, lastKey);
      scratch.clear();
      scratch.addRange(
        Math.max(start * CONTAINER_SPAN, term.lo),
        Math.min((end + 1) * CONTAINER_SPAN - 1, term.hi) + 1,
      );
      scratch.andInPlace(term.bitmap);
      // Containers of more than 8 KiB (run containers of many runs) may not fit the area: fewer at a time then.
      const size = scratch.getSerializationSizeInBytes('portable');
      if (size > areaBytes && start !== end) {
        length = Math.ceil(length / 2);
        continue;
      }
      let at = area;
      if (size > areaBytes) {
        // One container too large for the area: it goes through the staging area, converted right away.
        at = STAGING;
        assert(size <= STAGING_BYTES, 'one container fits the staging area');
      }
      const written = scratch.serialize('portable', at === STAGING ? this.kernel.staging : this.areaView(t)).length;
      scratch.clear();
      this.record(t, start, end - start + 1, at, written);
      if (at === STAGING) this.convertStaged(t);
      return;
    }
  }

  /** Term t's serialization area as bytes (views made once per use of the kernel: its memory may have grown). */
  private areaView(t: number): Uint8Array {
    let view = this.areaViews[t];
    if (view === undefined || view.buffer !== this.kernel.data.buffer) {
      const area = this.kernel.slotAddress(this.termSlots(t) + 1);
      view = new Uint8Array(this.kernel.data.buffer, area, (this.blockSlabs + 1) * BITSET_BYTES);
      this.areaViews[t] = view;
    }
    return view;
  }

  /** Records where each container of what roaring serialized at `at` lies (keys [start, start + length)). */
  private record(t: number, start: number, length: number, at: number, written: number): void {
    const base = t * this.blockSlabs;
    this.blockKind.fill(ABSENT, base, base + length);
    readContainers(this.kernel.data, at, written, start, length, base, this.blockKind, this.blockData, this.blockCard);
    this.blockKey[t] = start;
    this.blockLength[t] = length;
    this.convertedKey[t] = -1;
  }

  /** A one-container block serialized in the staging area: converted into the term's conversion slot now. */
  private convertStaged(t: number): void {
    const at = t * this.blockSlabs;
    const kind = this.blockKind[at]!;
    if (kind === ABSENT) return;
    const converted = this.kernel.slotAddress(this.termSlots(t));
    this.kernel.exports.loadContainer(this.blockData[at]!, this.blockCard[at]!, kind, converted);
    this.blockKind[at] = CONVERTED;
    this.blockData[at] = converted;
  }
}

/** Which group last loaded blocks into a kernel instance. */
const owner = new WeakMap<Kernel, object>();

const SERIAL_COOKIE_NO_RUNCONTAINER = 12_346;
const SERIAL_COOKIE = 12_347;
const NO_OFFSET_THRESHOLD = 4;
const ARRAY_CONTAINER_MAX = 4096;
const BITSET_BYTES = 8192;
/** Container kinds as the block tables hold them: the kernel's loadContainer kinds, and two of the driver's. */
const ABSENT = -1;
const BITSET = 1;
/** Converted already (a staged container): blockData is the conversion slot, read as a bitset. */
const CONVERTED = 3;
/** Unions a program keeps for reuse at most (each a temporary bitset, 8 KiB of kernel memory). */
const KEPT_UNIONS = 96;

/**
 * Reads the container headers of the portable serialization at `at` (`length` bytes, RoaringFormatSpec; containers
 * of keys [start, start + count)) into the tables at `base` + key - start: kind (0 array, 1 bitset, 2 run, as the
 * kernel's loadContainer takes them), data address, cardinality. Allocates nothing.
 */
function readContainers(
  view: DataView,
  at: number,
  length: number,
  start: number,
  count: number,
  base: number,
  kinds: Int8Array,
  data: Int32Array,
  cardinalities: Int32Array,
): void {
  assert(length >= 8, 'a portable serialization has a header');
  const cookie = view.getUint32(at, true);
  let containers: number;
  let runFlags = -1;
  let descriptions: number;
  let offsets = -1;
  if (cookie === SERIAL_COOKIE_NO_RUNCONTAINER) {
    containers = view.getUint32(at + 4, true);
    descriptions = at + 8;
    offsets = descriptions + 4 * containers;
  } else {
    assert((cookie & 0xffff) === SERIAL_COOKIE, 'a portable serialization cookie');
    containers = (cookie >>> 16) + 1;
    runFlags = at + 4;
    descriptions = runFlags + Math.ceil(containers / 8);
    if (containers >= NO_OFFSET_THRESHOLD) offsets = descriptions + 4 * containers;
  }
  let next = offsets === -1 ? descriptions + 4 * containers : offsets + 4 * containers;
  for (let i = 0; i < containers; i++) {
    const index = view.getUint16(descriptions + 4 * i, true) - start;
    assert(index >= 0 && index < count, 'roaring serialized a container of the block');
    const cardinality = view.getUint16(descriptions + 4 * i + 2, true) + 1;
    const isRun = runFlags !== -1 && ((view.getUint8(runFlags + (i >> 3)) >> (i & 7)) & 1) === 1;
    const kind = isRun ? 2 : cardinality > ARRAY_CONTAINER_MAX ? BITSET : 0;
    const address = offsets === -1 ? next : at + view.getUint32(offsets + 4 * i, true);
    const size = kind === 2 ? 2 + 4 * view.getUint16(address, true) : kind === BITSET ? BITSET_BYTES : 2 * cardinality;
    assert(address >= at && address + size <= at + length, 'a container lies inside what roaring wrote');
    kinds[base + index] = kind;
    data[base + index] = address;
    cardinalities[base + index] = cardinality;
    next = address + size;
  }
}

/** The compiled program of one group structure. */
interface Compiled {
  readonly program: Int32Array;
  readonly result: number;
  readonly temps: number;
}

/** Programs compiled lately, by group structure (most recent last): the two stages of a walk, repeated queries. */
const compiledByStructure = new Map<string, Compiled>();
const COMPILED_KEPT = 32;

/**
 * compile(plans, ids, uses), from compiledByStructure when the same structure (each plan's term ids, which number
 * terms in order of first appearance) was compiled lately: the program depends on nothing else. Compiling 256
 * plans allocates about 1 MB; the structure's key about 3 KB.
 */
function compiled(plans: readonly Plan[], ids: ReadonlyMap<WindowTerm, number>, uses: readonly number[]): Compiled {
  let key = '';
  for (const plan of plans) {
    for (let i = 0; i < plan.length; i++) key += `${ids.get(plan[i]!)!},`;
    key += ';';
  }
  let program = compiledByStructure.get(key);
  if (program === undefined) {
    program = compile(plans, ids, uses);
    if (compiledByStructure.size >= COMPILED_KEPT) compiledByStructure.delete(compiledByStructure.keys().next().value!);
  } else {
    compiledByStructure.delete(key);
  }
  compiledByStructure.set(key, program);
  return program;
}

/**
 * The program of the OR of `plans`: each plan's term ids ordered by `uses` (most-named first, then id), inserted
 * into a trie, the trie's distinct subtrees numbered (shape 0: a leaf), then each shape evaluated once into a
 * temporary, depth first, a temporary freed when its last user has read it. Returns the ops, the operand holding
 * the result and how many temporaries the program needs.
 */
function compile(
  plans: readonly Plan[],
  ids: ReadonlyMap<WindowTerm, number>,
  uses: readonly number[],
): { program: Int32Array; result: number; temps: number } {
  const root: TrieNode = { children: new Map(), end: false };
  for (const plan of plans) {
    const order = plan.map((term) => ids.get(term)!);
    order.sort((a, b) => uses[b]! - uses[a]! || b - a);
    let node = root;
    for (const id of order) {
      let child = node.children.get(id);
      if (child === undefined) {
        child = { children: new Map(), end: false };
        node.children.set(id, child);
      }
      node = child;
    }
    node.end = true;
  }
  // Shapes: 0 is the leaf; a node's shape is its children's (term, shape) pairs.
  const shapeOfKey = new Map<string, number>([['', 0]]);
  const shapes: Shape[] = [{ leafTerms: [], edges: [] }];
  const shapeOf = (node: TrieNode): number => {
    if (node.end || node.children.size === 0) return 0;
    const pairs = [...node.children].map(([term, child]) => [term, shapeOf(child)] as const);
    pairs.sort((a, b) => a[0] - b[0]);
    const key = pairs.map(([term, shape]) => `${term}:${shape}`).join(',');
    let shape = shapeOfKey.get(key);
    if (shape === undefined) {
      shape = shapes.length;
      shapeOfKey.set(key, shape);
      const leafTerms: number[] = [];
      const bySub = new Map<number, number[]>();
      for (const [term, sub] of pairs) {
        if (sub === 0) leafTerms.push(term);
        else bySub.set(sub, [...(bySub.get(sub) ?? []), term]);
      }
      shapes.push({ leafTerms, edges: [...bySub].map(([sub, terms]) => ({ terms, sub })) });
    }
    return shape;
  };
  const top = shapeOf(root);
  assert(top !== 0, 'a group of plans of two terms or more has a non-leaf root');
  // How many edges read each shape's value, so its temporary is freed after the last.
  const readers = new Array<number>(shapes.length).fill(0);
  const counted = new Set<number>();
  const countReaders = (shape: number): void => {
    if (counted.has(shape)) return;
    counted.add(shape);
    for (const edge of shapes[shape]!.edges) {
      readers[edge.sub]!++;
      countReaders(edge.sub);
    }
  };
  countReaders(top);
  const ops: number[] = [];
  const free: number[] = [];
  let temps = 0;
  const take = (): number => free.pop() ?? -1 - temps++;
  const keptOperands = new Set<number>();
  const release = (operand: number): void => {
    if (operand < 0 && !keptOperands.has(operand)) free.push(operand);
  };
  const value = new Map<number, number>();
  const weights = new Map<number, number>();
  const weight = (shape: number): number => {
    let w = weights.get(shape);
    if (w === undefined) {
      const { leafTerms, edges } = shapes[shape]!;
      w = leafTerms.length + edges.reduce((sum, edge) => sum + edge.terms.length + weight(edge.sub), 0);
      weights.set(shape, w);
    }
    return w;
  };
  // Unions of two terms or more computed so far, kept for reuse (a union that holds another starts from it: the
  // 256 pairs' unions nest), up to KEPT_UNIONS of them; each with its terms as a membership mask.
  const kept: { readonly mask: Uint8Array; readonly size: number; readonly operand: number }[] = [];
  const orOf = (terms: readonly number[]): number => {
    if (terms.length === 1) return terms[0]!;
    let best: (typeof kept)[number] | undefined;
    for (const union of kept) {
      if (union.size > terms.length || (best !== undefined && union.size <= best.size)) continue;
      let inside = 0;
      for (const term of terms) inside += union.mask[term]!;
      if (inside === union.size) best = union;
    }
    if (best !== undefined && best.size === terms.length) return best.operand;
    const rest = best === undefined ? terms : terms.filter((term) => best.mask[term] === 0);
    const sources = best === undefined ? rest : [best.operand, ...rest];
    const dst = take();
    ops.push(OP_OR, dst, 0, sources.length, ...sources);
    if (kept.length < KEPT_UNIONS) {
      const mask = new Uint8Array(uses.length);
      for (const term of terms) mask[term] = 1;
      kept.push({ mask, size: terms.length, operand: dst });
      keptOperands.add(dst);
    }
    return dst;
  };
  const evaluate = (shape: number): number => {
    const known = value.get(shape);
    if (known !== undefined) return known;
    const { leafTerms, edges } = shapes[shape]!;
    let result: number;
    if (edges.length === 0) {
      result = orOf(leafTerms);
    } else {
      // Smaller subtrees first, so that larger unions can start from smaller ones.
      const order = edges.map((_, i) => i).sort((a, b) => weight(edges[a]!.sub) - weight(edges[b]!.sub) || a - b);
      const subs: number[] = [];
      for (const i of order) subs[i] = evaluate(edges[i]!.sub);
      result = take();
      let keep = 0;
      if (leafTerms.length > 0) {
        ops.push(OP_OR, result, 0, leafTerms.length, ...leafTerms);
        keep = 1;
      }
      edges.forEach((edge, i) => {
        const terms = orOf(edge.terms);
        ops.push(OP_OR_AND, terms, subs[i]!, result, keep);
        keep = 1;
        release(terms);
        if (--readers[edge.sub]! === 0) release(subs[i]!);
      });
    }
    value.set(shape, result);
    return result;
  };
  const result = evaluate(top);
  return { program: Int32Array.from(ops), result, temps };
}
