# CMAKE generated file: DO NOT EDIT!
# Timestamp file for compiler generated dependencies management for file_engine_choice.
