# Run as `cmake -DSOURCE_DIR=<repo> -P check_includes.cmake` (ctest LayeringIncludesAreRepoRelative).
# Include roots only work if every include is repo-relative ("impl/store.h"). A path that
# starts with ./, ../ or / would step around them, so any such include or import fails here.
set(folders base model impl checker tests bench fuzz)
set(bad "")
foreach(folder IN LISTS folders)
  file(GLOB_RECURSE files LIST_DIRECTORIES false
       "${SOURCE_DIR}/${folder}/*.h" "${SOURCE_DIR}/${folder}/*.cc" "${SOURCE_DIR}/${folder}/*.proto")
  # npm packages that ./memwal test installs under tests/fixtures are not ours.
  list(FILTER files EXCLUDE REGEX "/node_modules/")
  foreach(file IN LISTS files)
    file(STRINGS "${file}" lines REGEX "^[ \t]*(#[ \t]*include|import)[ \t]*[\"<](\\.|/)")
    foreach(line IN LISTS lines)
      file(RELATIVE_PATH rel "${SOURCE_DIR}" "${file}")
      string(APPEND bad "  ${rel}: ${line}\n")
    endforeach()
  endforeach()
endforeach()
if(bad)
  message(FATAL_ERROR "includes must be repo-relative (\"impl/store.h\"), not:\n${bad}")
endif()
message(STATUS "all includes are repo-relative")
