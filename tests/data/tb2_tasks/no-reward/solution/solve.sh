#!/bin/bash
touch /app/marker
