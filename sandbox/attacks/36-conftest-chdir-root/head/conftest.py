import os

os.chdir('/')
