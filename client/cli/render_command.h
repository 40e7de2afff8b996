// File: render_command.h
//
// `arbiter render`: an SVG picture of a world with queries and their
// answers (render/svg_world.h), from a server, a snapshot file or a journal
// export (render_source.h).
#pragma once

namespace arbiter::cli {

/// argv[1] is "render". Exit codes: 0 written, 1 the world could not be
/// had or drawn, 2 usage.
int RunRender(int argc, char** argv);

/// The usage line(s) for the tool's help.
const char* RenderUsage();

}  // namespace arbiter::cli
