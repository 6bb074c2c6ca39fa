#!/bin/sh
# Called by .github/workflows/deploy.yml with the tag name.
set -eu
echo "deploying $1"
