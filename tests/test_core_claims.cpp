// Core claims across bench_mps instances (harness/sweep/core_claims): real flocks in a temporary folder.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>

#include <gtest/gtest.h>

#include "harness/sweep/core_claims.hpp"
#include "test_support.hpp"

namespace bench_mps::testing {
namespace {

using harness::CoreClaims;
using harness::pin_cpus;

const std::vector<int> kEight{0, 1, 2, 3, 4, 5, 6, 7};

TEST(CoreClaims, SecondClaimerGetsOtherCoresAndNamesTheFirst) {
  TempDir dir;
  CoreClaims a(dir.path(), kEight, 3, "GPU A");
  EXPECT_EQ(a.held(), (std::vector<int>{0, 1, 2}));
  EXPECT_TRUE(a.foreign().empty());
  CoreClaims b(dir.path(), kEight, 3, "GPU B");
  EXPECT_EQ(b.held(), (std::vector<int>{3, 4, 5}));
  ASSERT_EQ(b.foreign().size(), 3u);
  EXPECT_EQ(b.foreign()[0].cpu, 0);
  EXPECT_EQ(b.foreign()[0].owner, "pid " + std::to_string(::getpid()) + " (GPU A)");
}

TEST(CoreClaims, ClaimsGoWithTheirHolderAndWithKeepOnly) {
  TempDir dir;
  {
    CoreClaims a(dir.path(), kEight, 4, "GPU A");
    a.keep_only({2, 3});
    EXPECT_EQ(a.held(), (std::vector<int>{2, 3}));
    CoreClaims b(dir.path(), kEight, 2, "GPU B");
    EXPECT_EQ(b.held(), (std::vector<int>{0, 1})) << "cores let go by keep_only are free again";
  }
  CoreClaims c(dir.path(), kEight, 8, "GPU C");
  EXPECT_EQ(c.held(), kEight) << "destroyed claims are released";
}

TEST(CoreClaims, AProcessThatDiesReleasesItsClaims) {
  TempDir dir;
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    CoreClaims held(dir.path(), kEight, 8, "child");
    const char c = held.held().size() == 8 ? 'y' : 'n';
    if (::write(ready[1], &c, 1) != 1) ::_exit(2);
    ::pause();  // killed by the parent, never reaching any destructor
    ::_exit(0);
  }
  char c = 0;
  ASSERT_EQ(::read(ready[0], &c, 1), 1);
  EXPECT_EQ(c, 'y');
  CoreClaims during(dir.path(), kEight, 2, "parent");
  EXPECT_TRUE(during.held().empty()) << "the child holds every core";
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  ::close(ready[0]);
  ::close(ready[1]);
  CoreClaims after(dir.path(), kEight, 2, "parent");
  EXPECT_EQ(after.held(), (std::vector<int>{0, 1})) << "SIGKILL released the child's claims";
}

TEST(PinCpus, LeavesOutClaimedCoresAndRecordsWhy) {
  TempDir dir;
  CoreClaims other(dir.path(), kEight, 4, "GPU A");
  const auto p = pin_cpus(dir.path(), kEight, 3, "GPU B");
  EXPECT_EQ(p.plan.harness, (std::vector<int>{4}));
  EXPECT_EQ(p.plan.workers, (std::vector<int>{5, 6, 7}));
  EXPECT_EQ(p.meta["claimed"], (std::vector<int>{4, 5, 6, 7}));
  EXPECT_FALSE(p.meta["shared_with_other_sweeps"].get<bool>());
  EXPECT_EQ(p.meta["claimed_by_others"].size(), 4u);
  ASSERT_EQ(p.warnings.size(), 1u);
  EXPECT_NE(p.warnings[0].find("(GPU A)"), std::string::npos) << p.warnings[0];
}

TEST(PinCpus, WithEveryCoreClaimedItSharesAndSaysSo) {
  TempDir dir;
  CoreClaims other(dir.path(), kEight, 8, "GPU A");
  const auto p = pin_cpus(dir.path(), kEight, 3, "GPU B");
  EXPECT_TRUE(p.meta["shared_with_other_sweeps"].get<bool>());
  EXPECT_EQ(p.plan.workers, (std::vector<int>{1, 2, 3}));
  EXPECT_TRUE(p.claims.held().empty());
  ASSERT_FALSE(p.warnings.empty());
  EXPECT_NE(p.warnings[0].find("share cores"), std::string::npos) << p.warnings[0];
}

TEST(PinCpus, MoreWorkersThanCoresWarns) {
  TempDir dir;
  const auto p = pin_cpus(dir.path(), {0, 1, 2}, 10, "GPU A");
  EXPECT_EQ(p.plan.workers, (std::vector<int>{1, 2}));
  EXPECT_TRUE(p.meta["workers_share_cores"].get<bool>());
  ASSERT_EQ(p.warnings.size(), 1u);
  EXPECT_NE(p.warnings[0].find("up to 10 workers on 2 worker cores"), std::string::npos) << p.warnings[0];
  const auto fits = pin_cpus(dir.path() / "other", kEight, 4, "GPU B");
  EXPECT_TRUE(fits.warnings.empty());
  EXPECT_FALSE(fits.meta["workers_share_cores"].get<bool>());
}

TEST(PinCpus, CoresPerWorkerClaimsThatManyForEachAndWarnsWhereTheyRunShort) {
  TempDir dir;
  const auto p = pin_cpus(dir.path(), kEight, 3, "GPU A", 2);
  EXPECT_EQ(p.plan.harness, (std::vector<int>{0}));
  EXPECT_EQ(p.plan.workers, (std::vector<int>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(p.meta["claimed"], (std::vector<int>{0, 1, 2, 3, 4, 5, 6}))
      << "1 + 3 x 2 cores wanted, the eighth left free";
  EXPECT_EQ(p.meta["cores_per_worker"], 2);
  EXPECT_TRUE(p.warnings.empty()) << p.warnings.front();
  EXPECT_FALSE(p.meta["workers_share_cores"].get<bool>());
  const auto short_of = pin_cpus(dir.path() / "other", {0, 1, 2, 3}, 2, "GPU B", 2);
  EXPECT_EQ(short_of.plan.workers, (std::vector<int>{1, 2, 3}));
  EXPECT_TRUE(short_of.meta["workers_share_cores"].get<bool>());
  ASSERT_EQ(short_of.warnings.size(), 1u);
  EXPECT_NE(short_of.warnings[0].find("up to 2 workers of 2 cores each on 3 worker cores (1-3)"), std::string::npos)
      << short_of.warnings[0];
  const auto one = pin_cpus(dir.path() / "third", {4, 5}, 1, "GPU C", 2);  // one worker, one core of the two asked
  EXPECT_FALSE(one.meta["workers_share_cores"].get<bool>()) << "one worker shares its core with no other";
  ASSERT_EQ(one.warnings.size(), 1u);
  EXPECT_NE(one.warnings[0].find("a worker of 2 cores on 1 worker core (5): it gets fewer cores than asked"),
            std::string::npos)
      << one.warnings[0];
}

}  // namespace
}  // namespace bench_mps::testing
