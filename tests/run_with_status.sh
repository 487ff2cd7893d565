#!/bin/sh
# Runs a command, prints its output and then "exit=N", so that a CTest regular
# expression can check both the message and the exit status.
"$@" 2>&1
echo "exit=$?"
