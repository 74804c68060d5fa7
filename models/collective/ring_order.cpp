#include "models/collective/ring_order.h"

namespace pf::models::collective {
namespace {

int mod(int a, int n) { return ((a % n) + n) % n; }

// The snake: with an even number of servers, odd ones are walked backwards.
bool backwards(const Group& g, int j) { return g.nodes() % 2 == 0 && j % 2 == 1; }

// The member index on server j of the e-th GPU that channel c visits there.
int index_at(const Group& g, int j, int c, int e) {
  const int k = g.on_node(j);
  return backwards(g, j) ? mod(c + k - 1 - e, k) : mod(c + e, k);
}

int visit_of(const Group& g, int j, int c, int q) {
  const int k = g.on_node(j);
  const int e = mod(q - c, k);
  return backwards(g, j) ? k - 1 - e : e;
}

}  // namespace

RingSeat channel_ring(const Group& g, int channel, int gpu) {
  const Group::Place p = g.place(gpu);
  const int m = g.nodes();
  const int k = g.on_node(p.node);
  const int e = visit_of(g, p.node, channel, p.index);
  RingSeat s;
  s.position = g.members_before(p.node) + e;
  if (e + 1 < k) {
    s.next = g.gpu_at(p.node, index_at(g, p.node, channel, e + 1));
  } else {
    const int j = mod(p.node + 1, m);
    s.next = g.gpu_at(j, index_at(g, j, channel, 0));
  }
  if (e > 0) {
    s.prev = g.gpu_at(p.node, index_at(g, p.node, channel, e - 1));
  } else {
    const int j = mod(p.node - 1, m);
    s.prev = g.gpu_at(j, index_at(g, j, channel, g.on_node(j) - 1));
  }
  return s;
}

RingSeat node_ring(const Group& g, int gpu) {
  const Group::Place p = g.place(gpu);
  const int k = g.on_node(p.node);
  return {g.gpu_at(p.node, mod(p.index - 1, k)), g.gpu_at(p.node, mod(p.index + 1, k)), p.index};
}

RingSeat rail_ring(const Group& g, int gpu) {
  const Group::Place p = g.place(gpu);
  const int m = g.nodes();
  return {g.gpu_at(mod(p.node - 1, m), p.index), g.gpu_at(mod(p.node + 1, m), p.index), p.node};
}

}  // namespace pf::models::collective
