# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Makes ReportPage.inc (cmake -DSRC=<this dir> -DOUT=<file> -P embed.cmake):
# report.html, report.css and report.js as C++ raw string literals, which
# ReportWriter.cpp puts together into one self-contained page.
set(body "// Generated from tools/graph/report/ by embed.cmake: do not edit.\n")
foreach(part html css js)
  file(READ "${SRC}/report.${part}" text)
  string(FIND "${text}" ")gcpage\"" bad)
  if(NOT bad EQUAL -1)
    message(FATAL_ERROR "${SRC}/report.${part} holds the raw string's end )gcpage\"")
  endif()
  if(part STREQUAL "html")
    set(name ReportHtml)
  elseif(part STREQUAL "css")
    set(name ReportCss)
  else()
    set(name ReportJs)
  endif()
  string(APPEND body "const char ${name}[] = R\"gcpage(${text})gcpage\";\n")
endforeach()
file(WRITE "${OUT}.tmp" "${body}")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
