// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// grainchunk-graph's naming of compiler-made functions, for names.test:
// reads a function name a line and prints demangle(userFunction(name)) a
// line (the c++filt call made once for all, as for an object's names).
#include "Names.h"

#include <iostream>

int main() {
  std::vector<std::string> names;
  std::string line;
  while (std::getline(std::cin, line))
    names.push_back(gcg::userFunction(line));
  for (const std::string &n : gcg::demangle(names))
    std::cout << n << "\n";
}
