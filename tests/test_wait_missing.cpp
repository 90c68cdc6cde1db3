// core/wait_missing: the one describer of the PEs a wait misses, as the USHMEM_WAIT_TIMEOUT
// messages print them (mpi_tests match their first entries: "no answer yet from PE 1 ",
// "the members keeping it waiting: PE 3 (...)", "PEs not there: 0 ").
#include "core/wait_missing.hpp"

#include <gtest/gtest.h>

using ushmem::core::missing_pes;

TEST(MissingPes, NumbersAndReasons) {
    missing_pes l;
    l.add(3);
    l.add(5, "no answer");
    l.add(7);
    EXPECT_FALSE(l.empty());
    EXPECT_EQ(l.text(" none"), " 3 5 (no answer) 7");
}

TEST(MissingPes, EachNamedAsPe) {
    missing_pes l(16, "PE ");
    l.add(1, "has not reached this call");
    l.add(3, "no answer: stopped, hung, dead or unreachable");
    EXPECT_EQ(l.text(""), " PE 1 (has not reached this call) PE 3 (no answer: stopped, hung, dead or unreachable)");
}

TEST(MissingPes, NoneAndEveryPe) {
    missing_pes l;
    EXPECT_TRUE(l.empty());
    EXPECT_EQ(l.text(" none"), " none");
    l.add(-1, "all PEs of a worker flush");
    l.add(2);
    EXPECT_EQ(l.text(" none"), " (all PEs of a worker flush) 2");
}

TEST(MissingPes, LimitThenCount) {
    missing_pes l(3);
    for (int pe = 0; pe < 10; ++pe) l.add(pe);
    EXPECT_EQ(l.text(" none"), " 0 1 2 and 7 more");
}
