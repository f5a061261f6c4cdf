// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Processes of the same shape (CoarseGraph.h): a coarse graph's shape is
// its structure, not its values nor its ids; processes of equal sizes and
// shape are one class; the level search counts classes, not processes, in
// the budget, and ends (at start and end alone) whatever the cap.
#include "CoarseGraph.h"

#include <gtest/gtest.h>

using namespace gcg;

namespace {

/// start -> fork -> chunks (thread th) -> join -> end, prefixed ids.
CoarseGraph chain(const std::string &pre, int th, int64_t grains, double work) {
  CoarseGraph g;
  auto node = [&](CoarseGraph::Kind k, const std::string &id,
                  const std::string &label) {
    CoarseGraph::Node n;
    n.kind = k;
    n.id = pre + id;
    n.label = label;
    g.nodes.push_back(n);
  };
  node(CoarseGraph::Start, "start", "start");
  node(CoarseGraph::End, "end", "end");
  node(CoarseGraph::Fork, "f.L0", "fork a.c:3 (main)");
  node(CoarseGraph::Chunks, "g.L0.t0", "");
  node(CoarseGraph::Join, "j.L0", "join a.c:3 (main)");
  CoarseGraph::Node &c = g.nodes[3];
  c.name = "a.c:3 (main)";
  c.loc = "a.c:3";
  c.thread = th;
  c.grains = grains;
  c.instances = 1;
  c.hasExec = true;
  c.exec = int64_t(work);
  c.work = work;
  c.label = groupLabel(c);
  g.edges = {{0, 2, CoarseGraph::Continuation},
             {2, 3, CoarseGraph::Creation},
             {3, 4, CoarseGraph::Synchronization},
             {4, 1, CoarseGraph::Continuation}};
  return g;
}

bool same(const Shape &a, const Shape &b) { return !(a < b) && !(b < a); }

TEST(GraphShapes, AShapeIsTheStructureNotTheValuesNorTheIds) {
  Shape s = shapeOf(chain("p1.", 0, 10, 500));
  EXPECT_TRUE(same(s, shapeOf(chain("p2.", 0, 12, 900))));
  EXPECT_FALSE(same(s, shapeOf(chain("p1.", 1, 10, 500)))); // its thread
  CoarseGraph other = chain("p1.", 0, 10, 500);
  other.nodes[2].label = "fork b.c:9 (main)"; // another loop's fork
  EXPECT_FALSE(same(s, shapeOf(other)));
  // A task generation's fork named by its implicit task's runtime id
  // (another in each process): the same shape.
  CoarseGraph a = chain("p1.", 0, 10, 500), b = chain("p2.", 0, 10, 500);
  a.nodes[2].label = "fork i1099511627793", b.nodes[2].label = "fork i77";
  a.nodes[2].runtimeLabel = b.nodes[2].runtimeLabel = true;
  EXPECT_TRUE(same(shapeOf(a), shapeOf(b)));
  CoarseGraph more = chain("p1.", 0, 10, 500);
  more.edges.push_back({0, 1, CoarseGraph::Continuation});
  EXPECT_FALSE(same(s, shapeOf(more)));
}

TEST(GraphShapes, AClassLabelSaysHowManyProcesses) {
  CoarseGraph g = chain("", 1, 40, 1);
  g.nodes[3].instances = 4;
  EXPECT_EQ(groupLabel(g.nodes[3]),
            "40 chunks of a.c:3 (main) on thread 1 in 4 instances");
  EXPECT_EQ(groupLabel(g.nodes[3], 2),
            "40 chunks of a.c:3 (main) on thread 1 in 4 instances over 2 "
            "processes");
}

TEST(GraphShapes, ClassesAreEqualSizesAndShapesInTheOrderOfTheirFirst) {
  std::vector<ProcessShape> f(5);
  for (size_t p = 0; p < f.size(); p++) {
    f[p].nodes = 10, f[p].edges = 12;
    f[p].shaped = true;
    f[p].shape = {p % 2, 7};
  }
  f[4].nodes = 11; // its size alone: not alike, whatever its shape
  ShapeLevel s;
  classesOf(f, s);
  EXPECT_EQ(s.classOf, (std::vector<uint32_t>{0, 1, 0, 1, 2}));
  EXPECT_EQ(s.first, (std::vector<uint32_t>{0, 1, 4}));
}

/// P processes of `shapes` shapes whose graphs take 1000 bytes per block of
/// instances (blocks: 64 / block, one at block 0), 100 by site, 10 bare.
class Fake : public ShapeSearch {
public:
  Fake(size_t P, uint64_t shapes) : P(P), shapes_(shapes) {}
  size_t P;
  uint64_t shapes_;
  int shaped = 0;
  static uint64_t nodesAt(const CoarseLevel &l) {
    return l.bare ? 1 : l.bySite ? 10 : l.block ? 6400 / l.block : 100;
  }
  std::vector<ProcessShape> sizes(const CoarseLevel &l) override {
    std::vector<ProcessShape> f(P);
    for (ProcessShape &x : f)
      x.nodes = nodesAt(l);
    return f;
  }
  int levelsShaped = 0;
  void shapes(const CoarseLevel &, std::vector<ProcessShape> &f,
              const std::vector<uint8_t> &need, bool) override {
    levelsShaped++;
    for (size_t p = 0; p < P; p++)
      if (need[p]) {
        f[p].shaped = true;
        f[p].shape = {p % shapes_, 0};
        shaped++;
      }
  }
  void bytes(const CoarseLevel &, std::vector<ProcessShape> &f,
             const std::vector<uint32_t> &first) override {
    for (uint32_t p : first)
      f[p].sized = true, f[p].bytes = f[p].nodes * 10;
  }
  uint64_t fileBytes(const ShapeLevel &s,
                     const std::vector<ProcessShape> &f) override {
    uint64_t b = 0;
    for (uint32_t p : s.first)
      b += f[p].bytes;
    return b;
  }
};

TEST(GraphShapes, TheLevelCountsClassesNotProcesses) {
  // 8 processes of 2 shapes, 64,000 bytes each per instance: the 2
  // classes fit a cap of 128,000 there, the 8 processes would not.
  Fake two(8, 2);
  ShapeLevel s = shapeLevelFor(two, 128000, 64, 10, 0);
  EXPECT_EQ(s.level.block, 1u);
  EXPECT_FALSE(s.level.bySite);
  EXPECT_EQ(s.first.size(), 2u);
  EXPECT_EQ(s.classOf, (std::vector<uint32_t>{0, 1, 0, 1, 0, 1, 0, 1}));
  // 8 shapes: coarser (blocks of instances), each process its own class.
  Fake eight(8, 8);
  ShapeLevel t = shapeLevelFor(eight, 128000, 64, 10, 0);
  EXPECT_GT(t.level.block, 1u);
  EXPECT_EQ(t.first.size(), 8u);
  EXPECT_LE(8 * 10 * Fake::nodesAt(t.level), 128000u);
}

TEST(GraphShapes, NoShapeIsMadeWhereEvenAlikeProcessesWouldNotFit) {
  // 8 alike processes, 64,000 bytes each per instance, cap 16,000: even
  // one class would not fit per instance, so no shape is made there (a
  // shape is the process's coarse graph built: a node per chunk at that
  // level, as many as the recording's, on LULESH's ranks 900 MB). It
  // searches on to a level one class fits, and makes shapes there only.
  Fake f(8, 1);
  ShapeLevel s = shapeLevelFor(f, 16000, 64, 10, 0);
  EXPECT_LE(10 * Fake::nodesAt(s.level), 16000u);
  EXPECT_EQ(s.first.size(), 1u);
  EXPECT_EQ(f.shaped, 8 * f.levelsShaped);
  EXPECT_EQ(f.levelsShaped, 1);
}

TEST(GraphShapes, TheLevelSearchEndsAtStartAndEndAlone) {
  Fake f(3, 3);
  ShapeLevel s = shapeLevelFor(f, 1, 64, 10, 0);
  EXPECT_TRUE(s.level.bare);
  EXPECT_EQ(s.first.size(), 3u);
}

} // namespace
