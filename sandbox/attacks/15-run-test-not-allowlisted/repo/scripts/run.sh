#!/bin/sh
echo EVIL-CODE-RAN
