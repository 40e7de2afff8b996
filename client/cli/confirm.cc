#include "confirm.h"

#include <unistd.h>

#include <cstdio>
#include <iostream>

namespace arbiter::cli {

bool Confirm(const Context& c, const std::string& action, const std::string& what) {
  if (c.args->Has("yes")) return true;
  if (isatty(STDIN_FILENO) == 0) {
    std::fprintf(stderr,
                 "arbiter %s: this would %s %s; stdin is not a terminal, so pass --yes to confirm\n",
                 c.name.c_str(), action.c_str(), what.c_str());
    return false;
  }
  std::fprintf(stderr, "%s %s? [y/N] ", action.c_str(), what.c_str());
  std::string answer;
  std::getline(std::cin, answer);
  if (answer == "y" || answer == "Y" || answer == "yes") return true;
  std::fprintf(stderr, "arbiter %s: not confirmed; nothing changed\n", c.name.c_str());
  return false;
}

}  // namespace arbiter::cli
