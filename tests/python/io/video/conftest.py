# The fixtures live in video_media.py with the media they generate.
from video_media import media, tv_video  # noqa: F401
