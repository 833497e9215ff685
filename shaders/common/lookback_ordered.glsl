// The ordered look-back (LOOKBACK_ORDERED: float types, single_pass.comp): every run gives the same bits.
//
// Float combinations are not associative, so the unordered look-back's prefix -- predecessors' totals
// folded in whatever grouping the window's readiness gave -- differs in the last bits from run to run.
// Here every value that crosses tiles has one canonical definition, fixed by the tile totals alone.
// Tiles form blocks of G = min(subgroup size, W) consecutive tiles; block c holds tiles cG ... cG + G - 1.
//   Q_c(i)  the inclusive scan of block c's totals up to its i-th tile, by ordered_block_scan: a
//           Hillis-Steele scan across the subgroup's lanes, whose lane i depends on lanes 0 ... i only,
//           in a tree fixed by G.
//   BP(c)   block c's prefix, everything up to its last tile: BP(c) = BP(c - 1) + Q_c(G - 1), with
//           BP(0) = carry-in + Q_0(G - 1) (with_initial: without a carry-in, Q_0(G - 1) itself).
//   before(t), all before tile t = cG + r:  BP(c - 1) + Q_c(r - 1) (r > 0), BP(c - 1) (r = 0), the
//           carry-in alone for tile 0.
// A workgroup computes exactly these expressions, whichever states it finds, so its output is the same
// on every run. What it needs: BP(c - 1), which block c - 1's last tile publishes (a block-prefix slot
// after the tile states, PREFIX) or which it folds from an older published BP and the totals of the
// blocks between (one Q_c(G - 1) per block, a subgroup scan each, W / G blocks per round trip); and
// the totals of its own block's tiles before it. So tile states keep their totals: 0 -> AGGREGATE(total)
// -> DONE(total), the DONE store (same value) telling, as PREFIX does in the unordered look-back, that
// the owner may have begun to store its output ("In place" in lookback.glsl). Mixed AGGREGATE/DONE words
// carry one value and count as ready; a tile state never holds a prefix, so a fallback's offer (compare-
// and-swap from 0) always leaves it ready, and the look-back simply polls it again.
//
// The cost against the unordered look-back: a subgroup scan per block instead of a reduction per
// window segment, and a serial fold over the blocks found (a few) instead of over segments. A first
// version folded tile totals one at a time in invocation 0; on the H200 that serial chain ran up to
// 2.4x slower (bench/RESULTS.md).
#ifndef GPUSCAN_LOOKBACK_ORDERED_GLSL
#define GPUSCAN_LOOKBACK_ORDERED_GLSL

#extension GL_KHR_shader_subgroup_shuffle_relative : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_KHR_shader_subgroup_vote : require

const uint FLAG_DONE = 3u;  // AGGREGATE, and the owner may have begun to store its output

uint ordered_block_size() { return min(gl_SubgroupSize, gl_WorkGroupSize.x); }

// The state slot of block c's prefix: after the g_pass_blocks tile states (LOOKBACK_SLOTS).
uint block_prefix_slot(uint block) { return g_pass_blocks + block; }

// A state whose words carry AGGREGATE or DONE, mixed, is ready with AGGREGATE: both carry the total.
TileState read_ordered_state(uint slot) {
  uint flag = 0u;
  uvec2 words = uvec2(0u);
  for (uint h = 0u; h < T_WORDS; ++h) {
    const uint64_t s = atomicLoad(g_tile_state[slot * T_WORDS + h], gl_ScopeDevice, gl_StorageSemanticsBuffer,
                                  gl_SemanticsRelaxed);
    words[h] = uint(s);
    uint f = uint(s >> 32);
    if (f == FLAG_DONE) f = FLAG_AGGREGATE;
    flag = h == 0u || f == flag ? f : 0u;
  }
  return TileState(flag, from_words(words));
}


// Inclusive scan of the subgroup's lanes 0 ... G - 1 in a fixed tree: lane i's result depends on
// lanes 0 ... i alone, so whatever the later lanes hold, it is the same.
T ordered_block_scan(T v) {
  for (uint d = 1u; d < ordered_block_size(); d <<= 1u) {
    const T below = subgroupShuffleUp(v, d);
    if (gl_SubgroupInvocationID >= d) v = op_combine(below, v);
  }
  return v;
}

const uint BLOCK_FOUND = 0u;     // its BP was published: sh_block_value
const uint BLOCK_COMPLETE = 1u;  // every tile needed is ready: sh_block_value = Q_c(G - 1), or for the own block Q_c(r - 1)
const uint BLOCK_WAITING = 2u;   // sh_block_waiting is a tile needed and not ready

shared uint sh_block_status[gl_WorkGroupSize.x / 4u + 1u];
shared T sh_block_value[gl_WorkGroupSize.x / 4u + 1u];
shared uint sh_block_waiting[gl_WorkGroupSize.x / 4u + 1u];
shared T sh_own_inclusive;       // the own block's Q_c(r)

shared uint sh_ordered_action;
shared uint sh_ordered_block;    // next round's first block (backward: newest; forward: oldest)
shared bool sh_ordered_forward;
shared T sh_ordered_fold;        // BP of the block before sh_ordered_block (forward phase)
shared bool sh_ordered_has_fold; // false: nothing folded yet (before block 0)
shared uint sh_ordered_stuck;
shared bool sh_ordered_late_done;
shared T sh_ordered_before;
shared T sh_ordered_block_prefix;  // the own block's BP, if the tile is its block's last

// Subgroup-uniform: this subgroup examines block c (own = the tile's block, whose tiles before r are
// needed, the tile's own total standing at lane r) and leaves its status at sh_block_*[gl_SubgroupID].
void examine_block(uint c, bool own, uint r, T total, uint spin_limit) {
  const uint g = ordered_block_size();
  const uint lane = gl_SubgroupInvocationID;
  const uint tile = c * g + lane;
  const bool needed = own ? lane < r : tile < g_pass_blocks;
  TileState s = needed ? read_ordered_state(tile) : TileState(FLAG_AGGREGATE, own && lane == r ? total : op_identity());
  const bool prefix_lane = !own && lane == g - 1u;
  TileState bp = prefix_lane ? read_ordered_state(block_prefix_slot(c)) : TileState(0u, op_identity());
  bool found = false, ready = false;
  for (uint spins = 0u;; ++spins) {
    found = subgroupAny(bp.flag == FLAG_PREFIX);
    ready = subgroupAll(s.flag != 0u);
    if (found || ready || spins >= spin_limit) break;
    if (s.flag == 0u) s = read_ordered_state(tile);
    if (prefix_lane && bp.flag == 0u) bp = read_ordered_state(block_prefix_slot(c));
  }
  const T q = ordered_block_scan(s.value);
  const T before_lane = subgroupShuffle(q, own ? max(r, 1u) - 1u : g - 1u);
  const T at_lane = subgroupShuffle(q, own ? r : 0u);
  const T prefix = subgroupShuffle(bp.value, g - 1u);
  const uvec4 waiting = subgroupBallot(s.flag == 0u);
  if (subgroupElect()) {
    sh_block_status[gl_SubgroupID] = found ? BLOCK_FOUND : ready ? BLOCK_COMPLETE : BLOCK_WAITING;
    sh_block_value[gl_SubgroupID] = found ? prefix : before_lane;
    sh_block_waiting[gl_SubgroupID] = c * g + subgroupBallotFindLSB(waiting);
    if (own) sh_own_inclusive = at_lane;
  }
}

// Invocation 0: `fold` followed by block value q, starting from the carry-in when nothing is folded yet.
T fold_block(bool has_fold, T fold, T q) { return has_fold ? op_combine(fold, q) : LOOKBACK_TILE0_PREFIX(q); }

// Invocation 0, the own block complete with everything before it folded: before(t) and, for a block's
// last tile, its BP.
void finish_own(bool has_fold, T fold, uint r, uint subgroup) {
  sh_ordered_before = r > 0u ? fold_block(has_fold, fold, sh_block_value[subgroup]) : has_fold ? fold : LOOP_TILE0_BEFORE;
  sh_ordered_block_prefix = fold_block(has_fold, fold, sh_own_inclusive);
  sh_ordered_action = LOOKBACK_DONE;
}

// before(tile) (see the top of this file); `total` is the tile's own. Leaves the block's BP in
// sh_ordered_block_prefix for lookback_ordered_publish. Call from uniform control flow.
T lookback_ordered_prefix(uint tile, T total) {
  const uint g = ordered_block_size();
  const uint own_block = tile / g, r = tile % g;
  if (gl_LocalInvocationID.x == 0u) {
    sh_ordered_block = own_block;
    sh_ordered_forward = false;
    sh_ordered_has_fold = false;
    sh_ordered_late_done = false;
  }
  barrier();
  for (;;) {
    const uint first = sh_ordered_block;
    const bool forward = sh_ordered_forward;
    // Backward, subgroup s looks at block first - s; forward, at first + s, up to the own block.
    const uint c = forward ? first + gl_SubgroupID : first - gl_SubgroupID;
    const bool examines = forward ? c <= own_block : gl_SubgroupID <= first;
    if (examines) examine_block(c, c == own_block, r, total, gl_SubgroupID == 0u && !forward ? SPIN_LIMIT : 0u);
    barrier();
    if (gl_LocalInvocationID.x == 0u) {
      uint action = LOOKBACK_CONTINUE;
      T fold = sh_ordered_fold;
      bool has_fold = sh_ordered_has_fold;
      uint s = 0u;
      for (; s < gl_NumSubgroups && action == LOOKBACK_CONTINUE; ++s) {
        const uint cs = forward ? first + s : first - s;
        if (forward ? cs > own_block : s > first) break;  // past the own block / before block 0
        const uint status = sh_block_status[s];
        if (status == BLOCK_WAITING) {
          if (s == 0u || forward) {  // polled (or known ready before): take its total from its input
            action = LOOKBACK_FALLBACK;
            sh_ordered_stuck = sh_block_waiting[s];
          } else {                   // read once only: poll it properly in the next round
            action = LOOKBACK_RESUME;
          }
        } else if (LATE_FALLBACK && cs == own_block && r > 0u && !sh_ordered_late_done) {  // debugging aid
          action = LOOKBACK_FALLBACK;
          sh_ordered_stuck = tile - 1u;
          sh_ordered_late_done = true;
        } else if (forward) {
          if (cs == own_block) finish_own(has_fold, fold, r, s), action = LOOKBACK_DONE;
          else if (status == BLOCK_FOUND) fold = sh_block_value[s], has_fold = true;
          else fold = fold_block(has_fold, fold, sh_block_value[s]), has_fold = true;
        } else if (status == BLOCK_FOUND) {
          action = LOOKBACK_DONE;  // BP(cs) found: fold the newer blocks of this round, oldest first
          fold = sh_block_value[s];
          has_fold = true;
        }
      }
      if (!forward && action != LOOKBACK_FALLBACK) {
        // Backward: this round's newer blocks (below s) are complete. Done when a BP was found or block
        // 0 reached; then fold them and either finish (the round began at the own block) or fold the
        // blocks between forward.
        const bool reached_zero = action == LOOKBACK_CONTINUE && s > first;
        if (action == LOOKBACK_DONE || reached_zero) {
          const uint last = action == LOOKBACK_DONE ? s - 1u : s;  // the FOUND block, or one past block 0
          for (uint o = last; o-- > (first == own_block ? 1u : 0u);)
            fold = fold_block(has_fold, fold, sh_block_value[o]), has_fold = true;
          sh_ordered_fold = fold;
          sh_ordered_has_fold = has_fold;
          if (first == own_block) {
            finish_own(has_fold, fold, r, 0u);
          } else {
            sh_ordered_forward = true;
            sh_ordered_block = first + 1u;
            sh_ordered_action = LOOKBACK_CONTINUE;
          }
        } else {
          sh_ordered_block = action == LOOKBACK_RESUME ? first - (s - 1u) : first - gl_NumSubgroups;
          sh_ordered_action = LOOKBACK_CONTINUE;
        }
      } else if (forward && action != LOOKBACK_FALLBACK) {
        if (action == LOOKBACK_CONTINUE) {
          sh_ordered_fold = fold;
          sh_ordered_has_fold = has_fold;
          sh_ordered_block = first + gl_NumSubgroups;
        }
        sh_ordered_action = action;
      } else {
        sh_ordered_action = LOOKBACK_FALLBACK;
        if (forward) {  // keep what was folded before the stuck tile's block
          sh_ordered_fold = fold;
          sh_ordered_has_fold = has_fold;
          sh_ordered_block = sh_ordered_stuck / ordered_block_size();
        }
      }
    }
    barrier();
    const uint action = sh_ordered_action;
    if (action == LOOKBACK_DONE) break;
    if (action == LOOKBACK_FALLBACK) {
      // The stuck tile's total from its input, offered to its state (which is then ready, see the top
      // of this file); the round runs again. In place, a total read after the owner began to store is
      // not offered ("In place" in lookback.glsl): the state is DONE, so ready, anyway.
      const uint stuck = sh_ordered_stuck;
      const T stuck_total = fallback_total(stuck);
      if (gl_LocalInvocationID.x == 0u && !state_all(stuck, FLAG_DONE)) offer_state(stuck, FLAG_AGGREGATE, stuck_total);
      barrier();
    }
  }
  const T before = sh_ordered_before;
  barrier();  // the look-back's shared state is read by everyone before anyone reuses it
  return before;
}

// Invocation 0, after lookback_ordered_prefix and before the tile's output stores: DONE on the tile
// state, and the block's BP if the tile is its block's last (every PREFIX_STRIDE-th block only, under
// that debugging aid).
void lookback_ordered_publish(uint tile, T total) {
  const uint g = ordered_block_size();
  if (tile % g == g - 1u && (tile / g) % PREFIX_STRIDE == 0u)
    publish_state(block_prefix_slot(tile / g), FLAG_PREFIX, sh_ordered_block_prefix);
  if (!(WITHHOLD_FIRST_TILE && tile == 0u)) publish_state(tile, FLAG_DONE, total);  // (the aid: tile 0 never is)
}

#endif
