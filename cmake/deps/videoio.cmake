# FFmpeg for tc::io::VideoReader (tensorcore/io/video).
find_package(PkgConfig REQUIRED)
pkg_check_modules(TC_FFMPEG REQUIRED IMPORTED_TARGET
  libavformat libavcodec libswscale libswresample libavutil)
target_link_libraries(tensorcore PRIVATE PkgConfig::TC_FFMPEG)
