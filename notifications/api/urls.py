from django.urls import path

from notifications.api import views

urlpatterns = [
    path(
        "webhooks/subscriptions",
        views.SubscriptionListView.as_view(),
        name="webhooks-subscriptions",
    ),
    path(
        "webhooks/subscriptions/<str:subscription_id>",
        views.SubscriptionView.as_view(),
        name="webhooks-subscription",
    ),
    path("webhooks/deliveries", views.DeliveryListView.as_view(), name="webhooks-deliveries"),
    path(
        "webhooks/deliveries/<str:delivery_id>",
        views.DeliveryView.as_view(),
        name="webhooks-delivery",
    ),
    path(
        "webhooks/deliveries/<str:delivery_id>/replay",
        views.ReplayView.as_view(),
        name="webhooks-delivery-replay",
    ),
]
