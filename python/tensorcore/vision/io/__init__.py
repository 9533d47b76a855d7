from .video import VideoReader, read_video, read_video_timestamps  # noqa: F401
