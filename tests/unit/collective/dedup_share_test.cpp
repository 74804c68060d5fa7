// DeepEP's per-server deduplication of an MoE token all-to-all
// (collective::remote_dedup_share): the share of a plain all-to-all's bytes
// to another server that still crosses, against the hypergeometric
// probability computed independently here.
#include <gtest/gtest.h>

#include <cmath>

#include "models/collective/collective_types.h"

namespace pf::models::collective {
namespace {

// ln C(n, r)
double log_choose(int n, int r) { return std::lgamma(n + 1.0) - std::lgamma(r + 1.0) - std::lgamma(n - r + 1.0); }

TEST(DedupShare, IsTheChanceOfHittingTheServerOverThePlainCopies) {
  struct Case {
    int top_k, experts, members, on_server;
  };
  for (const Case c : {Case{8, 128, 32, 8}, Case{4, 16, 16, 8}, Case{8, 256, 64, 8}, Case{2, 64, 16, 4}}) {
    const int held = c.experts * c.on_server / c.members;
    const double miss = std::exp(log_choose(c.experts - held, c.top_k) - log_choose(c.experts, c.top_k));
    const double copies = static_cast<double>(c.top_k) * c.on_server / c.members;
    EXPECT_NEAR(remote_dedup_share(c.top_k, c.experts, c.members, c.on_server), (1 - miss) / copies, 1e-12)
        << c.top_k << " of " << c.experts << " over " << c.members << ", " << c.on_server << " on the server";
  }
  // Qwen3-235B on EP 32 over 4 servers: a token crosses to a server 0.45 times
  // per two plain copies.
  EXPECT_NEAR(remote_dedup_share(8, 128, 32, 8), 0.45, 0.01);
}

TEST(DedupShare, TopOneSavesNothingAndOneServerHoldingAllExpertsSavesAllButOneCopy) {
  for (int m : {1, 4, 8}) EXPECT_NEAR(remote_dedup_share(1, 64, 16, m), 1.0, 1e-12);
  EXPECT_NEAR(remote_dedup_share(8, 64, 16, 16), 1.0 / 8, 1e-12);
  EXPECT_DOUBLE_EQ(remote_dedup_share(0, 64, 16, 8), 1.0);  // no dedup requested
  // More experts picked per token: more of them share a server.
  EXPECT_LT(remote_dedup_share(8, 128, 32, 8), remote_dedup_share(4, 128, 32, 8));
}

}  // namespace
}  // namespace pf::models::collective
