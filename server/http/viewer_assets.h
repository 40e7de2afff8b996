// File: viewer_assets.h
//
// The viewer page's files (server/viewer/), embedded into the binary at
// build time (cmake/embed_files.cmake), so a server serves the page that
// matches its own API wherever it runs.
#pragma once

#include <string_view>

namespace arbiter::server {

std::string_view ViewerPage();    ///< server/viewer/index.html
std::string_view ViewerScript();  ///< server/viewer/viewer.js

}  // namespace arbiter::server
