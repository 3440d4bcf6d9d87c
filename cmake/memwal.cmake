# Build helpers for memwal-check: one static library per folder, gtest executables, tool
# binaries, and the include roots that make the layering rule (model/ and impl/ never see each other) a build
# error instead of a review comment.
#
# Layering. Sources include our headers by repo-relative path ("base/status.h",
# "model/state.h"). The repo root is never on an include path. Instead every target gets an
# include root, ${CMAKE_BINARY_DIR}/include_roots/<root>/, that holds one symlink per folder
# the target may see. A header outside those folders is simply "No such file".
#
#   memwal_library(NAME <folder> [SOURCES ...] [DEPS ...] [SEES <folders>...])
#       Creates STATIC target memwal_<folder> from files in the current source dir; it
#       links memwal_base, and DEPS, PUBLIC.
#       It sees base, itself and SEES; SEES must stay within MEMWAL_LAYER_<folder> below,
#       and every memwal_<x> in DEPS must be a folder it may see. Sources ending in .proto
#       are compiled with protoc; see "Protobuf" below.
#   memwal_test(NAME <target> SOURCES ... [DEPS ...] [SEES <folders>...] [LABELS ...])
#       Creates a gtest executable linked with GTest::gtest_main, rapidcheck_gtest and
#       rapidcheck, registered with gtest_discover_tests; every discovered test carries LABELS.
#       It sees base and SEES (tests may see any folder). Its include root is
#       include_roots/bin/<target>/.
#   memwal_binary(NAME <target> SOURCES ... [DEPS ...] [SEES <folders>...])
#       Creates a tool executable (the checker CLI, benchmarks) that sees base and SEES.
#   Executables link memwal_base and DEPS.
#
# Protobuf. A .proto in SOURCES is compiled with --proto_path set to the target's include
# root, so .proto imports are repo-relative and obey the same layering
# (import "impl/proto/file.proto"). impl/proto/table.proto yields
# ${CMAKE_BINARY_DIR}/generated/impl/impl/proto/manifest.pb.h, included as
# "impl/proto/table.pb.h" by any target that sees impl.

# What each library folder may see. A new library folder must be added here.
set(MEMWAL_LAYER_base    base)
set(MEMWAL_LAYER_model   base model)
set(MEMWAL_LAYER_impl    base impl)
set(MEMWAL_LAYER_inspect base impl inspect)
set(MEMWAL_LAYER_checker base model impl inspect checker)
set(MEMWAL_LAYER_FOLDERS base model impl inspect checker)

# checker/'s parts, bottom up: each is a folder, a namespace (memwal::checker::<part>) and a
# target (memwal_checker_<part>), and sees only the parts below it (memwal_checker_part).
#   lockstep  the implementation driven beside the model: refinement mapping, lockstep steps
#   engine    the one search engine (BFS, DFS, random walks), seen set, liveness, interrupts
#   report    trace files, ITF, HTML pages, JUnit
#   validate  trace validation: a Lance table's history explained by model actions
#   cli       the commands of memwal-check and their one command-line parser
set(MEMWAL_CHECKER_PARTS lockstep engine report validate cli)
set(MEMWAL_PARTS_lockstep lockstep)
set(MEMWAL_PARTS_engine   lockstep engine)
set(MEMWAL_PARTS_report   lockstep engine report)
set(MEMWAL_PARTS_validate lockstep validate)
set(MEMWAL_PARTS_cli      lockstep engine report validate cli)
foreach(part IN LISTS MEMWAL_CHECKER_PARTS)
  set(MEMWAL_LAYER_checker_${part} base model impl)
endforeach()
list(APPEND MEMWAL_LAYER_checker_validate inspect)
list(APPEND MEMWAL_LAYER_checker_cli inspect)

set(MEMWAL_WARNING_FLAGS -Wall -Wextra -Werror -Wshadow)

# Recreates include_roots/<root>/ with one symlink per folder in the list ARGN.
# Links to folders that do not exist yet are made anyway: they start to resolve as soon as
# the folder appears, without a reconfigure.
function(memwal_make_include_root root)
  set(dir "${CMAKE_BINARY_DIR}/include_roots/${root}")
  file(REMOVE_RECURSE "${dir}")
  file(MAKE_DIRECTORY "${dir}")
  foreach(folder IN LISTS ARGN)
    file(CREATE_LINK "${CMAKE_SOURCE_DIR}/${folder}" "${dir}/${folder}" SYMBOLIC)
  endforeach()
endfunction()

# The policy roots exist from the start, so probes can use a folder's root before (or
# without) that folder's library. memwal_library narrows its root to what it declares.
foreach(folder IN LISTS MEMWAL_LAYER_FOLDERS)
  memwal_make_include_root(${folder} ${MEMWAL_LAYER_${folder}})
endforeach()

# The include root of checker part `part`: the folders it may see, and a checker/ directory
# that holds only the parts below it (MEMWAL_PARTS_<part>).
function(memwal_make_part_root part)
  set(root checker_${part})
  memwal_make_include_root(${root} ${MEMWAL_LAYER_${root}})
  set(dir "${CMAKE_BINARY_DIR}/include_roots/${root}/checker")
  file(MAKE_DIRECTORY "${dir}")
  foreach(seen IN LISTS MEMWAL_PARTS_${part})
    file(CREATE_LINK "${CMAKE_SOURCE_DIR}/checker/${seen}" "${dir}/${seen}" SYMBOLIC)
  endforeach()
endfunction()

# memwal_checker_part(NAME <part> SOURCES ... [DEPS ...]): STATIC target memwal_checker_<part>
# from checker/<part>/, seeing what MEMWAL_LAYER_checker_<part> and MEMWAL_PARTS_<part> allow
# (the generated headers of checker/ too: bench's SPIN template).
function(memwal_checker_part)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "NAME" "SOURCES;DEPS")
  set(part "${arg_NAME}")
  if(NOT part IN_LIST MEMWAL_CHECKER_PARTS)
    message(FATAL_ERROR "memwal_checker_part(NAME ${part}): not in MEMWAL_CHECKER_PARTS")
  endif()
  set(target memwal_checker_${part})
  list(TRANSFORM arg_SOURCES PREPEND "${part}/")
  add_library(${target} STATIC ${arg_SOURCES})
  memwal_make_part_root(${part})
  memwal_use_include_root(${target} checker_${part} ${MEMWAL_LAYER_checker_${part}} checker)
  target_link_libraries(${target} PUBLIC memwal_base ${arg_DEPS})
endfunction()

# Gives `target` the include root `root` (which must see exactly `folders`), the generated
# protobuf headers of those folders, and our warning flags.
function(memwal_use_include_root target root)
  set(folders ${ARGN})
  target_include_directories(${target} PRIVATE "${CMAKE_BINARY_DIR}/include_roots/${root}")
  foreach(folder IN LISTS folders)
    set(gen "${CMAKE_BINARY_DIR}/generated/${folder}")
    file(MAKE_DIRECTORY "${gen}")
    target_include_directories(${target} SYSTEM PRIVATE "${gen}")
  endforeach()
  target_compile_options(${target} PRIVATE ${MEMWAL_WARNING_FLAGS})
endfunction()

# Compiles the .proto files in ARGN for memwal_<folder>, with protoc looking only inside the
# target's include root.
function(memwal_add_protos target folder)
  set(root "${CMAKE_BINARY_DIR}/include_roots/${folder}")
  set(out "${CMAKE_BINARY_DIR}/generated/${folder}")
  foreach(proto IN LISTS ARGN)
    get_filename_component(abs "${proto}" ABSOLUTE)
    file(RELATIVE_PATH rel "${CMAKE_SOURCE_DIR}" "${abs}")
    string(REGEX REPLACE "\\.proto$" "" stem "${rel}")
    set(pb_cc "${out}/${stem}.pb.cc")
    set(pb_h "${out}/${stem}.pb.h")
    add_custom_command(
      OUTPUT "${pb_cc}" "${pb_h}"
      COMMAND ${Protobuf_PROTOC_EXECUTABLE} "--proto_path=${root}" "--cpp_out=${out}"
              "${root}/${rel}"
      DEPENDS "${abs}" ${Protobuf_PROTOC_EXECUTABLE}
      COMMENT "protoc ${rel}"
      VERBATIM)
    # Generated code is not ours to fix; keep it from failing the build on a new warning.
    set_source_files_properties("${pb_cc}" PROPERTIES COMPILE_OPTIONS "-w")
    target_sources(${target} PRIVATE "${pb_cc}" "${pb_h}")
  endforeach()
  target_link_libraries(${target} PUBLIC protobuf::libprotobuf)
endfunction()

function(memwal_library)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "NAME" "SOURCES;DEPS;SEES")
  set(folder "${arg_NAME}")
  if(NOT folder IN_LIST MEMWAL_LAYER_FOLDERS)
    message(FATAL_ERROR "memwal_library(NAME ${folder}): unknown folder; add MEMWAL_LAYER_${folder} "
                        "and the folder to MEMWAL_LAYER_FOLDERS in cmake/memwal.cmake")
  endif()
  set(allowed ${MEMWAL_LAYER_${folder}})
  set(sees base ${folder} ${arg_SEES})
  list(REMOVE_DUPLICATES sees)
  foreach(seen IN LISTS sees)
    if(NOT seen IN_LIST allowed)
      message(FATAL_ERROR "layering: ${folder}/ may not see ${seen}/ (allowed: ${allowed})")
    endif()
  endforeach()
  foreach(dep IN LISTS arg_DEPS)
    if(dep MATCHES "^memwal_(.+)$" AND NOT CMAKE_MATCH_1 IN_LIST allowed)
      message(FATAL_ERROR "layering: memwal_${folder} may not depend on ${dep}")
    endif()
  endforeach()

  set(target memwal_${folder})
  set(protos ${arg_SOURCES})
  list(FILTER protos INCLUDE REGEX "\\.proto$")
  set(sources ${arg_SOURCES})
  list(FILTER sources EXCLUDE REGEX "\\.proto$")
  add_library(${target} STATIC ${sources})
  memwal_make_include_root(${folder} ${sees})
  memwal_use_include_root(${target} ${folder} ${sees})
  if(NOT folder STREQUAL "base")
    target_link_libraries(${target} PUBLIC memwal_base)
  endif()
  target_link_libraries(${target} PUBLIC ${arg_DEPS})
  if(protos)
    memwal_add_protos(${target} ${folder} ${protos})
  endif()
endfunction()

# jemalloc (Debian's libjemalloc-dev) for every executable, the checker and the tests alike:
# lockstep makes and frees protobuf messages at a high rate, and glibc's malloc spent a third
# of the lockstep profile consolidating its free lists (bench/README.md). The tests run the
# same searches as the checker, so they get the same allocator: the suite's longest test,
# Lockstep.DefaultConfigAtSmallAgreesWithTheModelAndReachesEveryGoal, took 259 CPU-s linked
# with glibc's malloc and 134 with jemalloc (`/usr/bin/time conformance_test
# --gtest_filter=Lockstep.DefaultConfigAtSmall*`, both builds side by side, 2026-12-02).
# Not with the sanitizers or libFuzzer, which bring their own allocator.
find_library(MEMWAL_JEMALLOC NAMES jemalloc)

# Shared by memwal_test and memwal_binary: an executable with its own include root.
function(memwal_executable_with_root target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "SOURCES;DEPS;SEES")
  set(sees base ${arg_SEES})
  list(REMOVE_DUPLICATES sees)
  add_executable(${target} ${arg_SOURCES})
  memwal_make_include_root(bin/${target} ${sees})
  memwal_use_include_root(${target} bin/${target} ${sees})
  target_link_libraries(${target} PRIVATE memwal_base ${arg_DEPS})
  if(MEMWAL_JEMALLOC AND MEMWAL_SANITIZE STREQUAL "" AND NOT MEMWAL_FUZZ)
    target_link_libraries(${target} PRIVATE ${MEMWAL_JEMALLOC})
  endif()
endfunction()

function(memwal_test)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "NAME" "SOURCES;DEPS;SEES;LABELS")
  memwal_executable_with_root(${arg_NAME} SOURCES ${arg_SOURCES} DEPS ${arg_DEPS}
                              SEES ${arg_SEES})
  target_link_libraries(${arg_NAME} PRIVATE GTest::gtest_main GTest::gtest rapidcheck_gtest
                                            rapidcheck)
  if(arg_LABELS)
    gtest_discover_tests(${arg_NAME} DISCOVERY_TIMEOUT 30 PROPERTIES LABELS "${arg_LABELS}")
  else()
    gtest_discover_tests(${arg_NAME} DISCOVERY_TIMEOUT 30)
  endif()
endfunction()

function(memwal_binary)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "NAME" "SOURCES;DEPS;SEES")
  memwal_executable_with_root(${arg_NAME} SOURCES ${arg_SOURCES} DEPS ${arg_DEPS}
                              SEES ${arg_SEES})
endfunction()
