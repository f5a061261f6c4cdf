// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- Parts.h - an MPI job analysed where it ran: parts and their merge --===//
//
// mpirun -np N grainchunk-graph -o D -- ./app: each rank analyses its own
// processes into a part (D/raw/.rank-<r>.part), rank 0 merges the parts
// into the job's outputs without reading any rank's recording. Command.cpp
// runs the ranks (records, marks, waits); this file makes and merges parts.
//
//===----------------------------------------------------------------------===//
#ifndef GRAINCHUNK_GRAPH_PARTS_H
#define GRAINCHUNK_GRAPH_PARTS_H

#include "Command.h"
#include "Launch.h"
#include "OutputDir.h"

#include <string>
#include <vector>

namespace gcg {

/// Whether rank 0 can merge every output o asks for from the ranks' parts.
bool mergeable(const Options &o);
/// Whether the outputs asked for need the job's head marks (JobHead).
bool needsHead(const Options &o);
/// D/raw/.rank-<k>.<what>: a rank's recording (rec), part, or mark.
std::string rankDir(const std::string &raw, int k, const char *what);
/// The entries of a directory (not . and ..), sorted.
std::vector<std::string> entriesOf(const std::string &d);
/// Rank rk's part: its recording rec analysed (as processes of a larger
/// run) into the directory part, after the ranks' heads are exchanged.
void writePart(const Options &o, const RankInfo &rk, const std::string &raw,
               const std::string &rec, const std::string &part);
/// Rank 0: the job's outputs in dir from the parts of ranks (in order).
void mergeParts(const Options &o, const std::string &raw,
                const std::vector<int> &ranks, OutputDir &dir);

} // namespace gcg

#endif
